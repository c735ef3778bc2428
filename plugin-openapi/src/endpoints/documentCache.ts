/**
 * @module plugin-openapi/endpoints/documentCache
 * Lazy generation: the description is built on the first request and cached per sanitized config (it is
 * static); its text is kept per format and per trusted origin (`trustedHosts`: that origin is the first server).
 */
import type { SanitizedConfig } from 'payload'
import { stringify } from 'yaml'

import { generateOpenAPIDocument } from '../generate/generateOpenAPIDocument.js'
import type { OpenAPIV3_1 } from '../openapi.js'
import type { OpenAPIPluginOptions } from '../types.js'

interface Cached {
  document: OpenAPIV3_1.Document
  /** By `<format> <origin>`. */
  texts: Map<string, string>
}

const cache = new WeakMap<SanitizedConfig, Cached>()

/**
 * The description of a config as JSON or YAML text, generated once. With `origin` (a trusted host's, see
 * `trustedOrigin`), that origin leads the servers, unless the options give `servers` themselves.
 */
export function getDocumentText(config: SanitizedConfig, options: OpenAPIPluginOptions, format: 'json' | 'yaml', origin?: string): string {
  let entry = cache.get(config)
  if (!entry) {
    entry = { document: generateOpenAPIDocument(config, options), texts: new Map() }
    cache.set(config, entry)
  }
  const key = `${format} ${origin ?? ''}`
  let text = entry.texts.get(key)
  if (text === undefined) {
    const { document } = entry
    const servers =
      origin && !options.servers ? [{ url: origin, description: 'This server' }, ...(document.servers ?? []).filter((s) => s.url !== origin)] : document.servers
    const doc = servers === document.servers ? document : { ...document, servers }
    text = format === 'json' ? JSON.stringify(doc) : stringify(doc, { aliasDuplicateObjects: false })
    entry.texts.set(key, text)
  }
  return text
}
