/**
 * @module plugin-openapi/schemas/schemaRegistry
 * Builds the component schemas on demand: `<Name>`, `<Name>Create`, `<Name>Update`, `<Name>Version`, `<Name>List`
 * per collection, `<Global>`, `<Global>Update` per global, and one component per block and mode.
 */
import type { SanitizedCollectionConfig, SanitizedConfig, SanitizedGlobalConfig } from 'payload'

import type { OpenAPIV3_1 } from '../openapi.js'
import { fieldsToSchema, type FieldSchemaContext, type SchemaMode } from './fieldsToSchema.js'
import { nullable, objectSchema, pascalCase, ref, type Schema } from './jsonSchema.js'
import { joinsSchema, populateSchema, selectSchema, whereSchema, type QueryEntity, type QuerySchemaContext } from './querySchemas.js'

const modeSuffix: Record<SchemaMode, string> = { create: 'Create', read: '', update: 'Update' }

/** Component schema registry of one document. */
export interface SchemaRegistry {
  schemas: Record<string, OpenAPIV3_1.SchemaObject>
  /** Base component name of a collection or global (`interfaceName` or PascalCase slug). */
  nameOf(slug: string, kind?: 'collection' | 'global'): string
  collectionSchema(slug: string, mode: SchemaMode): Schema
  versionSchema(slug: string, kind: 'collection' | 'global'): Schema
  listSchema(slug: string): Schema
  globalSchema(slug: string, mode: 'read' | 'update'): Schema
  idSchema(slug: string): Schema
  /** `<Name>Where` (or `<Name>VersionWhere`) of a collection or global. */
  whereSchema(slug: string, kind: 'collection' | 'global', versions?: boolean): Schema
  /** `<Name>Select` (or `<Name>VersionSelect`) of a collection or global. */
  selectSchema(slug: string, kind: 'collection' | 'global', versions?: boolean): Schema
  /** `Populate`, or undefined when no field relates to a collection (nothing can be populated). */
  populateSchema(): Schema | undefined
  /** `<Name>Joins`, or undefined when the collection has no join field. */
  joinsSchema(slug: string): Schema | undefined
}

/** Creates the registry for a sanitized config. */
export function createSchemaRegistry(config: SanitizedConfig): SchemaRegistry {
  const schemas: Record<string, Schema> = {}
  const collections = new Map(config.collections.map((c) => [c.slug, c]))
  const globals = new Map(config.globals.map((g) => [g.slug, g]))
  const blocks = new Map((config.blocks ?? []).map((b) => [b.slug, b]))
  const localeCodes = config.localization ? config.localization.localeCodes : undefined
  const taken = new Map<string, string>()
  const blockNames = new Map<string, string>()
  const idSchemas = new Map<string, Schema>()

  function uniqueName(base: string, key: string): string {
    let name = base
    for (let i = 2; taken.has(name) && taken.get(name) !== key; i++) name = `${base}${i}`
    taken.set(name, key)
    return name
  }

  const names = new Map<string, string>()
  for (const c of config.collections) names.set(`collection:${c.slug}`, uniqueName(pascalCase(interfaceName(c) ?? c.slug), `collection:${c.slug}`))
  for (const g of config.globals) names.set(`global:${g.slug}`, uniqueName(pascalCase(interfaceName(g) ?? g.slug), `global:${g.slug}`))

  const nameOf = (slug: string, kind: 'collection' | 'global' = 'collection'): string => names.get(`${kind}:${slug}`) ?? pascalCase(slug)

  function idSchema(slug: string): Schema {
    const cached = idSchemas.get(slug)
    if (cached) return cached
    const collection = collections.get(slug)
    const custom = collection?.fields.find((f) => 'name' in f && f.name === 'id')
    let s: Schema
    if (custom) s = custom.type === 'number' ? { type: 'number' } : { type: 'string' }
    else s = (config.db as { defaultIDType?: string }).defaultIDType === 'number' ? { type: 'integer' } : { type: 'string' }
    idSchemas.set(slug, s)
    return s
  }

  const ctx: FieldSchemaContext = {
    blockBySlug: (slug) => blocks.get(slug),
    blockRef(block, mode, drafts) {
      // Same slug, same component: Payload identifies a block by its slug (`blockType`).
      let base = blockNames.get(block.slug)
      if (!base) {
        base = uniqueName(interfaceName(block) ? pascalCase(interfaceName(block)!) : `${pascalCase(block.slug)}Block`, `block:${block.slug}`)
        blockNames.set(block.slug, base)
      }
      // Read from an entity whose drafts are not validated, a block promises its types only (`<Block>Draft`).
      const lenient = mode === 'read' && Boolean(drafts)
      const name = `${base}${lenient ? 'Draft' : modeSuffix[mode]}`
      if (!schemas[name]) {
        schemas[name] = {} // placeholder: blocks may nest themselves
        const inner = fieldsToSchema(block.fields, mode, lenient ? { ...ctx, drafts: true } : ctx)
        const props: Record<string, Schema> = {
          blockType: { type: 'string', const: block.slug },
          ...(mode === 'read' ? { id: { type: 'string' } } : { id: nullable({ type: 'string' }) }),
          blockName: nullable({ type: 'string' }),
          ...inner.properties,
        }
        schemas[name] = objectSchema(props, ['blockType', ...inner.required])
      }
      return ref(name)
    },
    docRef(slug) {
      if (!collections.has(slug)) return { type: 'object' }
      return collectionSchema(slug, 'read')
    },
    idSchema,
    localeCodes,
  }

  function collectionSchema(slug: string, mode: SchemaMode): Schema {
    const name = `${nameOf(slug)}${modeSuffix[mode]}`
    if (schemas[name]) return ref(name)
    const collection = collections.get(slug)
    if (!collection) return { type: 'object' }
    schemas[name] = {}
    schemas[name] = buildCollection(collection, mode)
    return ref(name)
  }

  function buildCollection(c: SanitizedCollectionConfig, mode: SchemaMode): Schema {
    const drafts = unvalidatedDrafts(c)
    const walked = fieldsToSchema(c.fields, mode, drafts ? { ...ctx, drafts } : ctx, true)
    const props: Record<string, Schema> = {}
    let required = walked.required
    if (mode !== 'read') {
      // Hierarchy path fields (CMS 4 folders/tags) are computed: read-only, absent from bodies.
      for (const name of hierarchyPathFields(c)) {
        delete walked.properties[name]
        required = required.filter((n) => n !== name)
      }
    }
    const hasCustomID = c.fields.some((f) => 'name' in f && f.name === 'id')
    if (mode === 'read' && !hasCustomID) props.id = idSchema(c.slug)
    Object.assign(props, walked.properties)
    if (mode === 'read' && c.auth) {
      // Payload adds these to user documents it returns (seen on every read; `_strategy` on login/me/refresh).
      props.collection = { type: 'string', description: 'Slug of the auth collection.' }
      props._strategy = { type: 'string', description: 'How the user authenticated (login, me, refresh answers).' }
    }
    const auth = c.auth as { disableLocalStrategy?: unknown; useSessions?: boolean } | undefined
    if (c.auth && auth?.useSessions !== false && mode !== 'read') {
      // Payload's own session list: the CMS stores client-chosen session IDs as sent, so bodies never offer it
      // (the admin panel does not send it either).
      delete props.sessions
      required = required.filter((n) => n !== 'sessions')
    }
    if (c.auth && !auth?.disableLocalStrategy && mode !== 'read') {
      props.password = { type: 'string', format: 'password', writeOnly: true }
      if (mode === 'create') required = [...required, 'password']
    }
    // Only the ID always comes back: `select` can leave out every other field.
    if (mode === 'read') required = ['id']
    if (mode === 'update') required = []
    const description = `${mode === 'read' ? 'Document' : mode === 'create' ? 'Create body' : 'Update body'} of collection \`${c.slug}\`.`
    return objectSchema(props, required, { description })
  }

  function globalSchema(slug: string, mode: 'read' | 'update'): Schema {
    const name = `${nameOf(slug, 'global')}${modeSuffix[mode]}`
    if (schemas[name]) return ref(name)
    const g = globals.get(slug) as SanitizedGlobalConfig
    schemas[name] = {}
    const drafts = unvalidatedDrafts(g)
    const walked = fieldsToSchema(g.fields, mode, drafts ? { ...ctx, drafts } : ctx, true)
    const props: Record<string, Schema> =
      mode === 'read' ? { id: { type: ['integer', 'string'] }, globalType: { type: 'string' }, ...walked.properties } : walked.properties
    schemas[name] = objectSchema(props, [], { description: `${mode === 'read' ? 'Document' : 'Update body'} of global \`${slug}\`.` })
    return ref(name)
  }

  function versionSchema(slug: string, kind: 'collection' | 'global'): Schema {
    const base = nameOf(slug, kind)
    const name = `${base}Version`
    if (schemas[name]) return ref(name)
    // The stored version is the document's data without its own `id` (the version row has the ID).
    if (kind === 'collection') collectionSchema(slug, 'read')
    else globalSchema(slug, 'read')
    const read = schemas[base] ?? {}
    const dataName = `${base}VersionData`
    schemas[dataName] = {
      ...read,
      required: ((read.required as string[] | undefined) ?? []).filter((n) => n !== 'id'),
      description: `Data of a version of ${kind} \`${slug}\`.`,
    }
    if ((schemas[dataName].required as string[]).length === 0) delete schemas[dataName].required
    const version = ref(dataName)
    const props: Record<string, Schema> = {
      id: { type: ['integer', 'string'] },
      version,
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      autosave: nullable({ type: 'boolean' }),
      latest: nullable({ type: 'boolean' }),
      publishedLocale: nullable({ type: 'string' }),
      snapshot: nullable({ type: 'boolean' }),
    }
    if (kind === 'collection') props.parent = { anyOf: [idSchema(slug), collectionSchema(slug, 'read')] }
    schemas[name] = objectSchema(props, ['id', 'version'], { description: `A version of ${kind} \`${slug}\`.` })
    return ref(name)
  }

  function listSchema(slug: string): Schema {
    const name = `${nameOf(slug)}List`
    if (!schemas[name]) schemas[name] = paginated(collectionSchema(slug, 'read'), `A page of \`${slug}\` documents.`)
    return ref(name)
  }

  const queryCtx: QuerySchemaContext = {
    config,
    schemas,
    idSchema,
    entity: (slug) => ({ name: nameOf(slug), slug, fields: collections.get(slug)?.fields ?? [], kind: 'collection' }),
  }
  const entity = (slug: string, kind: 'collection' | 'global'): QueryEntity =>
    kind === 'collection' ? queryCtx.entity(slug) : { name: nameOf(slug, 'global'), slug, fields: globals.get(slug)?.fields ?? [], kind }
  const populated = relationTargets(config)

  return {
    collectionSchema,
    globalSchema,
    idSchema,
    joinsSchema: (slug) => joinsSchema(entity(slug, 'collection'), queryCtx),
    listSchema,
    nameOf,
    populateSchema: () => (populated.size > 0 ? populateSchema(queryCtx, populated) : undefined),
    schemas,
    selectSchema: (slug, kind, versions = false) => selectSchema(entity(slug, kind), queryCtx, versions),
    versionSchema,
    whereSchema: (slug, kind, versions = false) => whereSchema(entity(slug, kind), queryCtx, versions),
  }
}

/** Payload's paginated result around an item schema. */
export function paginated(item: Schema, description: string): Schema {
  const int = { type: 'integer' }
  return objectSchema(
    {
      docs: { type: 'array', items: item },
      totalDocs: int,
      limit: int,
      totalPages: int,
      page: int,
      pagingCounter: int,
      hasPrevPage: { type: 'boolean' },
      hasNextPage: { type: 'boolean' },
      prevPage: nullable(int),
      nextPage: nullable(int),
    },
    // No `limit` on an empty page of `limit=0` (seen on SQLite).
    ['docs', 'totalDocs', 'totalPages', 'page', 'pagingCounter', 'hasPrevPage', 'hasNextPage'],
    { description },
  )
}

/**
 * Whether the entity saves drafts that Payload does not validate: `versions.drafts` without `validate: true`
 * (Payload's own `hasDraftValidationEnabled`); such drafts skip every field's validation, `required` included.
 */
function unvalidatedDrafts(entity: { versions?: unknown }): boolean {
  const versions = entity.versions as { drafts?: unknown } | boolean | undefined
  const drafts = versions && typeof versions === 'object' ? versions.drafts : undefined
  return Boolean(drafts) && !(typeof drafts === 'object' && (drafts as { validate?: unknown }).validate)
}

/** Names of the computed hierarchy path fields of a folder/tag collection (renamable; CMS 4). */
export function hierarchyPathFields(c: object): string[] {
  const h = (c as { hierarchy?: unknown }).hierarchy
  if (!h) return []
  const o = typeof h === 'object' ? (h as { slugPathFieldName?: string; titlePathFieldName?: string }) : {}
  return [o.slugPathFieldName ?? '_h_slugPath', o.titlePathFieldName ?? '_h_titlePath']
}

function interfaceName(entity: object): string | undefined {
  const name = (entity as { interfaceName?: unknown }).interfaceName
  return typeof name === 'string' ? name : undefined
}

/** Collections some relationship or upload field points at: the ones whose documents can be populated. */
function relationTargets(config: SanitizedConfig): Set<string> {
  const out = new Set<string>()
  const walk = (fields: unknown[] | undefined): void => {
    for (const field of fields ?? []) {
      const f = field as Record<string, any>
      if (f.relationTo) for (const slug of Array.isArray(f.relationTo) ? f.relationTo : [f.relationTo]) out.add(slug)
      walk(f.fields)
      for (const tab of f.tabs ?? []) walk(tab.fields)
      for (const block of f.blocks ?? []) walk(block.fields)
    }
  }
  for (const c of config.collections) walk(c.fields)
  for (const g of config.globals) walk(g.fields)
  for (const b of config.blocks ?? []) walk(b.fields)
  return out
}
