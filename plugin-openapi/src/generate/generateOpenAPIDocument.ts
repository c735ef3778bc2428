/**
 * @module plugin-openapi/generate/generateOpenAPIDocument
 * The pure generator: sanitized config in, OpenAPI 3.1 document out. Operations come from the endpoints the
 * sanitized config mounts (`collection.endpoints`, `global.endpoints`, `config.endpoints`), matched against the
 * catalog of Payload's endpoints; custom endpoints are added when they carry `custom.openapi`.
 */
import type { Endpoint, SanitizedConfig } from 'payload'

import { findCatalogEntry, normalizePath, routeKey, type CatalogFilter } from '../catalog/catalog.js'
import type { OpenAPIV3_1 } from '../openapi.js'
import { labelsOf, type BuildContext, type Scope } from '../operations/context.js'
import { queryParameters } from '../operations/parameters.js'
import { commonSchemas, errorResponses } from '../operations/responses.js'
import { buildSecurity } from '../operations/security.js'
import { createSchemaRegistry } from '../schemas/schemaRegistry.js'
import { resolveOptions, type CustomEndpointOpenAPI, type EntityOpenAPI, type OpenAPIPluginOptions, type ResolvedOptions } from '../types.js'
import { collectRefs, customOperation, resolvesIn } from './customOperation.js'

const commonSchemaNames = new Set(Object.keys(commonSchemas()))

/** Marks the plugin's own endpoints (they are not documented: see README). */
export const PLUGIN_ENDPOINT_MARK = 'openapiPluginEndpoint'

/** Thrown when a custom endpoint's `custom.openapi` refers to something the document lacks. */
export class OpenAPIReferenceError extends Error {
  override name = 'OpenAPIReferenceError'
}

/**
 * Payload prefixes its own collections and globals (4.x adds the `payload-jobs-stats` global); folder
 * collections are ordinary (spec) even when so named.
 */
function isSystemEntity(slug: string, config: SanitizedConfig): boolean {
  const folders = (config as { folders?: { slug?: string } | false }).folders
  if (folders && folders.slug === slug) return false
  return /^(payload|cms)-/.test(slug)
}

function allowedByFilter(filter: CatalogFilter | undefined, o: ResolvedOptions): boolean {
  switch (filter) {
    case 'auth':
      return o.includeAuth
    case 'adminAuth':
      return o.includeAuth && o.includeAdminAuth
    case 'versions':
      return o.includeVersions
    case 'jobs':
      return o.includeJobs
    default:
      return true
  }
}

/**
 * Drops component parameters, and the shared schemas among `candidates`, that nothing refers to. One text search
 * over the serialized paths and schemas: walking the object tree cost more than the rest of the generation.
 */
function pruneUnused(document: OpenAPIV3_1.Document, candidates: string[]): void {
  const text = JSON.stringify(document.paths) + JSON.stringify(document.components.schemas) + JSON.stringify(document.components.responses)
  const used = (kind: string, name: string) => text.includes(`"#/components/${kind}/${name}"`)
  for (const name of Object.keys(document.components.parameters ?? {})) {
    if (!used('parameters', name)) delete document.components.parameters![name]
  }
  for (const name of candidates) if (!used('schemas', name)) delete document.components.schemas[name]
}

/**
 * The operation with the responses its collection or global declares (`custom.openapi.responses`, by
 * `METHOD /path` or `*`); a declared response without `content` answers in Payload's error shape.
 */
function withDeclaredResponses(op: OpenAPIV3_1.OperationObject, declared: EntityOpenAPI['responses'], key: string): OpenAPIV3_1.OperationObject {
  const extra = { ...declared?.['*'], ...declared?.[key] }
  if (Object.keys(extra).length === 0) return op
  const responses = { ...op.responses }
  for (const [status, response] of Object.entries(extra)) {
    responses[status] = {
      description: response.description ?? 'Error.',
      ...response,
      ...(response.content ? {} : { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }),
    }
  }
  return { ...op, responses }
}

/** `/:id?` -> [`''` or without, `/{id}`]; `:x` -> `{x}`. */
function toOpenAPIPaths(path: string): string[] {
  const p = normalizePath(path)
  const optional = p.match(/^(.*)\/:([A-Za-z0-9_]+)\?$/)
  const convert = (s: string) => s.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
  if (optional) return [convert(optional[1] ?? ''), `${convert(optional[1] ?? '')}/{${optional[2]}}`]
  return [p === '/' ? '' : convert(p)]
}

/**
 * Generates the OpenAPI 3.1 description of the REST API a sanitized Payload config serves.
 * @example
 * const config = await buildConfig({ ... })
 * const doc = generateOpenAPIDocument(config, { includeVersions: false })
 */
export function generateOpenAPIDocument(config: SanitizedConfig, options: OpenAPIPluginOptions = {}): OpenAPIV3_1.Document {
  const o = resolveOptions(options)
  const registry = createSchemaRegistry(config)
  const parameters = queryParameters(config.localization ? config.localization.localeCodes : undefined)
  const b: BuildContext = { config, options: o, parameters: new Set(Object.keys(parameters)), registry, security: buildSecurity(config) }
  const apiRoute = normalizePath(config.routes?.api ?? '/api').replace(/^\/$/, '')
  const paths: Record<string, OpenAPIV3_1.PathItemObject> = {}
  const excluded = new Set(o.excludeOperations.map((s) => s.trim()))
  const usedIds = new Set<string>()
  const customOps: { where: string; op: OpenAPIV3_1.OperationObject }[] = []
  const customSchemas: Record<string, OpenAPIV3_1.SchemaObject> = {}
  const customSchemaOwners = new Map<string, string>()
  const clash = (where: string, name: string) =>
    new OpenAPIReferenceError(`custom.openapi of ${where}: component schema "${name}" is already defined differently`)
  const tags = new Map<string, string | undefined>()
  const tagDescriptions = new Map<string, string>([
    ['Access', 'Permissions of the current user.'],
    ['Upload instructions', 'Where and how to upload file bytes (client uploads).'],
    ['Custom', 'Custom endpoints of the config.'],
    ['plugin-seo', 'Generate SEO fields (@payloadcms/plugin-seo).'],
    ['Payments', 'Payment methods of @payloadcms/plugin-ecommerce.'],
    ['MCP', 'Model Context Protocol server of @payloadcms/plugin-mcp.'],
  ])
  for (const c of config.collections) {
    const kinds = [c.auth && 'auth', c.upload && 'uploads'].filter(Boolean).join(', ')
    tagDescriptions.set(c.slug, `Collection \`${c.slug}\`${kinds ? ` (${kinds})` : ''}.`)
  }
  for (const g of config.globals) tagDescriptions.set(`globals/${g.slug}`, `Global \`${g.slug}\`.`)

  const add = (method: string, fullPath: string, op: OpenAPIV3_1.OperationObject): boolean => {
    const key = `${method.toUpperCase()} ${fullPath}`
    if (excluded.has(key) || (op.operationId && excluded.has(op.operationId))) return false
    const item = (paths[fullPath] ??= {})
    if (item[method]) return false
    let id = op.operationId ?? key
    for (let i = 2; usedIds.has(id); i++) id = `${op.operationId}${i}`
    usedIds.add(id)
    item[method] = { ...op, operationId: id }
    for (const t of op.tags ?? []) if (!tags.has(t)) tags.set(t, tagDescriptions.get(t))
    return true
  }

  const documentScope = (scope: Scope, base: string, endpoints: Endpoint[] | false | undefined, system: boolean) => {
    if (!endpoints) return
    const entity = scope.kind === 'collection' ? scope.collection : scope.kind === 'global' ? scope.global : undefined
    const declared = (entity?.custom as { openapi?: EntityOpenAPI } | undefined)?.openapi?.responses
    const seen = new Set<string>()
    for (const e of endpoints) {
      const method = String(e.method).toLowerCase()
      const key = routeKey(method, e.path)
      if (seen.has(key)) continue // Payload's router takes the first match: later ones are never reached
      seen.add(key)
      const custom = e.custom as { openapi?: CustomEndpointOpenAPI; [PLUGIN_ENDPOINT_MARK]?: boolean } | undefined
      if (custom?.[PLUGIN_ENDPOINT_MARK]) continue
      if (custom?.openapi && !system) {
        for (const rel of toOpenAPIPaths(e.path)) {
          const fullPath = `${apiRoute}${base}${rel}` || '/'
          const op = customOperation(b, scope, method, fullPath, custom.openapi, apiRoute)
          if (add(method, fullPath, op)) customOps.push({ where: `${method.toUpperCase()} ${fullPath}`, op })
        }
        for (const [name, schema] of Object.entries(custom.openapi.components?.schemas ?? {})) {
          const where = `${method.toUpperCase()} ${apiRoute}${base}${e.path}`
          if (customSchemas[name] && JSON.stringify(customSchemas[name]) !== JSON.stringify(schema)) throw clash(where, name)
          customSchemas[name] = schema
          customSchemaOwners.set(name, where)
        }
        continue
      }
      const entry = findCatalogEntry(scope, method, e.path, b)
      if (!entry?.build || entry.excluded) continue
      if (system && entry.filter !== 'jobs') continue
      if (!allowedByFilter(entry.filter, o)) continue
      for (const [rel, op] of Object.entries(entry.build(b, scope, e.path))) {
        add(method, `${apiRoute}${base}${rel}` || '/', withDeclaredResponses(op, declared, `${method.toUpperCase()} ${rel || '/'}`))
      }
    }
  }

  const inList = (slug: string, include: string[] | undefined, exclude: string[]) => (!include || include.includes(slug)) && !exclude.includes(slug)
  for (const collection of config.collections) {
    if (!inList(collection.slug, o.includeCollections, o.excludeCollections)) continue
    const system = isSystemEntity(collection.slug, config) && !o.includeSystem
    const name = registry.nameOf(collection.slug)
    const scope: Scope = { kind: 'collection', collection, labels: labelsOf(collection), name, slug: collection.slug, tag: collection.slug }
    documentScope(scope, `/${collection.slug}`, collection.endpoints, system)
  }
  for (const global of config.globals) {
    if (!inList(global.slug, o.includeGlobals, o.excludeGlobals)) continue
    const scope: Scope = {
      kind: 'global',
      global,
      labels: labelsOf(global),
      name: `Global${registry.nameOf(global.slug, 'global')}`,
      slug: global.slug,
      tag: `globals/${global.slug}`,
    }
    documentScope(scope, `/globals/${global.slug}`, global.endpoints, isSystemEntity(global.slug, config) && !o.includeSystem)
  }
  documentScope({ kind: 'root', labels: { plural: '', singular: '' }, name: '', slug: '', tag: 'Custom' }, '', config.endpoints, false)

  // Generated schemas are built on demand, so a clash with them is only known once every operation exists.
  for (const [name, where] of customSchemaOwners) if (registry.schemas[name] || commonSchemaNames.has(name)) throw clash(where, name)
  const document: OpenAPIV3_1.Document = {
    openapi: '3.1.0',
    info: { title: 'Payload CMS REST API', version: '1.0.0', ...o.info },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: o.servers ?? [{ url: config.serverURL || '/' }],
    tags: [...tags].map(([name, description]) => (description ? { name, description } : { name })),
    paths,
    components: {
      schemas: { ...commonSchemas(), ...registry.schemas, ...customSchemas },
      parameters,
      responses: errorResponses(),
      securitySchemes: b.security.schemes,
    },
  }
  pruneUnused(document, Object.keys(commonSchemas()))
  for (const { where, op } of customOps) {
    for (const pointer of collectRefs(op)) {
      if (!resolvesIn(document, pointer)) throw new OpenAPIReferenceError(`custom.openapi of ${where}: $ref "${pointer}" does not resolve`)
    }
  }
  return document
}
