/**
 * @module plugin-openapi/endpoints/documentCache
 * Lazy generation: the description is built on the first request and cached per sanitized config (it is static).
 */
import type { SanitizedConfig } from 'payload'
import { stringify } from 'yaml'

import { generateOpenAPIDocument } from '../generate/generateOpenAPIDocument.js'
import type { OpenAPIPluginOptions } from '../types.js'

interface Cached {
  json?: string
  yaml?: string
  document: ReturnType<typeof generateOpenAPIDocument>
}

const cache = new WeakMap<SanitizedConfig, Cached>()

/** The description of a config as JSON or YAML text, generated once. */
export function getDocumentText(config: SanitizedConfig, options: OpenAPIPluginOptions, format: 'json' | 'yaml'): string {
  let entry = cache.get(config)
  if (!entry) {
    entry = { document: generateOpenAPIDocument(config, options) }
    cache.set(config, entry)
  }
  if (format === 'json') return (entry.json ??= JSON.stringify(entry.document))
  return (entry.yaml ??= stringify(entry.document, { aliasDuplicateObjects: false }))
}
