/**
 * @module plugin-openapi/endpoints/specEndpoint
 * `GET <routes.api><specRoute>` (JSON) and its `.yaml` twin.
 */
import type { Endpoint } from 'payload'

import { PLUGIN_ENDPOINT_MARK } from '../generate/generateOpenAPIDocument.js'
import type { OpenAPIPluginOptions } from '../types.js'
import { getDocumentText } from './documentCache.js'
import { refusedRead, trustedOrigin } from './readAccess.js'

/** The endpoint serving the description in one format. */
export function specEndpoint(path: string, format: 'json' | 'yaml', options: OpenAPIPluginOptions): Endpoint {
  return {
    path,
    method: 'get',
    custom: { [PLUGIN_ENDPOINT_MARK]: true },
    handler: async (req) => {
      const refused = await refusedRead(req, options)
      if (refused) return refused
      const body = getDocumentText(req.payload.config, options, format, trustedOrigin(req, options.trustedHosts))
      const type = format === 'json' ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8'
      return new Response(body, { status: 200, headers: { 'Content-Type': type, 'Cache-Control': 'no-cache' } })
    },
  }
}
