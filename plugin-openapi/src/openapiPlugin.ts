/**
 * @module plugin-openapi/openapiPlugin
 * The Payload plugin: adds root endpoints serving the description (JSON, YAML) and a self-hosted docs page.
 * The description itself is generated lazily from the sanitized config on the first request.
 */
import type { Config, Endpoint } from 'payload'

import { relativeToApi, yamlRouteOf } from './constants.js'
import { docsEndpoints } from './endpoints/docsEndpoints.js'
import { specEndpoint } from './endpoints/specEndpoint.js'
import { PLUGIN_ENDPOINT_MARK } from './generate/generateOpenAPIDocument.js'
import { resolveOptions, type OpenAPIPluginOptions } from './types.js'

/** Where the plugin keeps its options in `config.custom`, so `writeOpenAPIDocument` can find them. */
export const OPTIONS_KEY = 'openapiPlugin'

/**
 * Adds `GET <api>/openapi.json`, `GET <api>/openapi.yaml` and the docs page `GET <api>/docs`.
 * @example
 * export default buildConfig({ plugins: [openapiPlugin({ info: { title: 'My CMS', version: '2.0.0' } })], ... })
 */
export const openapiPlugin =
  (options: OpenAPIPluginOptions = {}) =>
  (config: Config): Config => {
    const o = resolveOptions(options)
    if (o.disabled) return config
    const apiRoute = (config.routes?.api ?? '/api').replace(/\/+$/, '')
    // Applied twice (e.g. by a preset and by hand): the last registration replaces the earlier one, nothing is doubled.
    const existing = (config.endpoints ?? []).filter((e) => !(e.custom as Record<string, unknown> | undefined)?.[PLUGIN_ENDPOINT_MARK])
    const added: Endpoint[] = []
    let specURL: string | undefined
    if (o.specRoute !== false) {
      const path = relativeToApi(o.specRoute, apiRoute)
      specURL = `${apiRoute}${path}`
      added.push(specEndpoint(path, 'json', options), specEndpoint(yamlRouteOf(path), 'yaml', options))
    }
    if (o.docsRoute !== false && specURL) {
      const path = relativeToApi(o.docsRoute, apiRoute)
      added.push(...docsEndpoints(path, specURL, `${apiRoute}${path}`, o.info?.title ?? 'Payload CMS REST API', options))
    }
    return {
      ...config,
      custom: { ...config.custom, [OPTIONS_KEY]: options },
      endpoints: [...existing, ...added],
    }
  }
