/**
 * @module plugin-openapi/schemas/querySchemas
 * The `where`, `select`, `populate` and `joins` query parameters as Payload parses them (`qs` brackets,
 * `parseParams`), per collection: `<Name>Where` lists the field paths the collection can be queried by, each
 * with the operators that suit its type; `<Name>Select` the fields that can be picked (nested for groups, arrays
 * and named tabs); `Populate` a select per collection; `<Name>Joins` the options of each join field.
 */
import type { Field, SanitizedConfig } from 'payload'

import { isNeverAllowed } from './fieldsToSchema.js'
import { ref, type Schema } from './jsonSchema.js'

/** What the query schemas need from the document being built. */
export interface QuerySchemaContext {
  config: SanitizedConfig
  schemas: Record<string, Schema>
  /** A collection as a query entity. */
  entity(slug: string): QueryEntity
  idSchema(slug: string): Schema
}

const bool: Schema = { type: 'boolean' }
/** `in`/`not_in`/`all`: several values (`where[id][in][0]=1&where[id][in][1]=2`). */
const several = (value: Schema): Schema => ({ type: 'array', items: value, minItems: 1 })

/**
 * What the database adapter can query, by its `name` (the sanitized `config.db`): Payload's SQL adapters (drizzle)
 * have no `all` operator, and only PostgreSQL answers the point operators; SQLite fails (500) on both. MongoDB, and
 * an adapter this plugin does not know, get every operator Payload documents.
 */
export interface AdapterQueries {
  all: boolean
  geo: boolean
  /** A drizzle adapter: `blockType` is matched against the block tables, so only block slugs can be its value. */
  sql: boolean
}

export function adapterQueries(config: SanitizedConfig): AdapterQueries {
  const name = String((config.db as { name?: unknown } | undefined)?.name ?? '')
  const sqlite = /sqlite/i.test(name)
  const sql = sqlite || /postgres/i.test(name)
  return { all: !sql, geo: !sqlite, sql }
}

/** Operators of one value type: each one's value schema. */
function operatorsFor(kind: string, value: Schema, hasMany = false, adapter: AdapterQueries = { all: true, geo: true, sql: false }): Record<string, Schema> {
  const equality = { equals: value, not_equals: value, in: several(value), not_in: several(value), exists: bool }
  const order = { greater_than: value, greater_than_equal: value, less_than: value, less_than_equal: value }
  switch (kind) {
    case 'text':
      return { ...equality, like: { type: 'string' }, not_like: { type: 'string' }, contains: { type: 'string' } }
    case 'number':
    case 'date':
    case 'id':
      return { ...equality, ...order }
    case 'checkbox':
      return { equals: value, not_equals: value, exists: bool }
    case 'select':
    case 'relationship':
      return hasMany && adapter.all ? { ...equality, all: several(value) } : equality
    case 'point':
      return adapter.geo
        ? { exists: bool, near: { type: 'string', description: '`<longitude>,<latitude>,<maxDistance>,<minDistance>` (meters).' } }
        : { exists: bool }
    default:
      return { exists: bool }
  }
}

const operatorObject = (operators: Record<string, Schema>): Schema => ({
  type: 'object',
  properties: operators,
  additionalProperties: false,
  minProperties: 1,
})

interface WherePath {
  path: string
  operators: Record<string, Schema>
}

/** Field paths a collection can be queried by (dot notation into groups, arrays, named tabs and blocks). */
function wherePaths(fields: Field[], ctx: QuerySchemaContext, prefix: string, out: WherePath[], relationPrefixes: string[]): void {
  const adapter = adapterQueries(ctx.config)
  for (const field of fields) {
    const f = field as Field & Record<string, any>
    if (f.type === 'ui' || f.type === 'join') continue
    if (f.type === 'row' || f.type === 'collapsible' || (f.type === 'group' && !f.name)) {
      wherePaths(f.fields, ctx, prefix, out, relationPrefixes)
      continue
    }
    if (f.type === 'tabs') {
      for (const tab of f.tabs as Record<string, any>[]) wherePaths(tab.fields, ctx, tab.name ? `${prefix}${tab.name}.` : prefix, out, relationPrefixes)
      continue
    }
    if (!f.name || f.hidden === true || f.virtual || isNeverAllowed(f.access?.read)) continue
    const path = `${prefix}${f.name}`
    switch (f.type) {
      case 'text':
      case 'textarea':
      case 'email':
      case 'code':
        out.push({ path, operators: operatorsFor('text', { type: 'string' }) })
        break
      case 'number':
        out.push({ path, operators: operatorsFor('number', { type: 'number' }) })
        break
      case 'date':
        out.push({ path, operators: operatorsFor('date', { type: 'string', format: 'date-time' }) })
        break
      case 'checkbox':
        out.push({ path, operators: operatorsFor('checkbox', bool) })
        break
      case 'point':
        out.push({ path, operators: operatorsFor('point', {}, false, adapter) })
        break
      case 'select':
      case 'radio': {
        const values = (f.options as (string | { value: string })[]).map((o) => (typeof o === 'string' ? o : o.value))
        out.push({ path, operators: operatorsFor('select', { type: 'string', enum: values }, Boolean(f.hasMany), adapter) })
        break
      }
      case 'relationship':
      case 'upload': {
        if (Array.isArray(f.relationTo)) {
          // Polymorphic: queried by the target's ID and its collection (`pinned.value`, `pinned.relationTo`); the
          // plain path answers "Not supported" (500) on the SQL adapters, and `relationTo` takes equality only
          // there (400 "cannot be queried" for `in` or `exists`).
          const ids = [...new Set(f.relationTo.map((slug: string) => JSON.stringify(ctx.idSchema(slug))))].map((t) => JSON.parse(t as string) as Schema)
          const id: Schema = ids.length === 1 ? ids[0]! : { type: ['integer', 'string'] }
          const target: Schema = { type: 'string', enum: f.relationTo }
          out.push({ path: `${path}.value`, operators: operatorsFor('relationship', id, false, adapter) })
          out.push({ path: `${path}.relationTo`, operators: { equals: target, not_equals: target } })
          break
        }
        const id: Schema = ctx.idSchema(f.relationTo)
        out.push({ path, operators: operatorsFor('relationship', id, Boolean(f.hasMany), adapter) })
        // Payload also queries through a relationship (`heroImage.alt`); those paths are the related collection's.
        relationPrefixes.push(path)
        break
      }
      case 'group':
      case 'array':
        wherePaths(f.fields, ctx, `${path}.`, out, relationPrefixes)
        if (f.type === 'array') out.push({ path: `${path}.id`, operators: operatorsFor('text', { type: 'string' }) })
        break
      case 'blocks': {
        const blocks = ((f.blockReferences ?? f.blocks ?? []) as (string | { slug: string; fields: Field[] })[])
          .map((b) => (typeof b === 'string' ? ctx.config.blocks?.find((x) => x.slug === b) : b))
          .filter((b): b is { slug: string; fields: Field[] } => Boolean(b))
        // A block's slug. The SQL adapters find the block table by the value, so they take slugs only: no `exists`
        // or pattern (500 there); MongoDB reads the stored text.
        const slug: Schema = { type: 'string', enum: blocks.map((b) => b.slug) }
        const { exists, ...equality } = operatorsFor('select', slug, false, adapter)
        out.push({
          path: `${path}.blockType`,
          operators: adapter.sql
            ? equality
            : { ...equality, exists: exists!, like: { type: 'string' }, not_like: { type: 'string' }, contains: { type: 'string' } },
        })
        for (const block of blocks) wherePaths(block.fields, ctx, `${path}.`, out, relationPrefixes)
        break
      }
      default:
        // json, richText: only whether a value is there (their inner paths depend on the data).
        out.push({ path, operators: operatorsFor('other', {}) })
    }
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** A collection or global as the query schemas see it: its component base name, slug and fields. */
export interface QueryEntity {
  name: string
  slug: string
  fields: Field[]
  kind: 'collection' | 'global'
}

/**
 * `<Name>Where`: a query as `where[<path>][<operator>]=<value>`, combinable with `and` / `or`. With `versions`,
 * the query of the entity's versions (`<Name>VersionWhere`): the version row's own fields, and the document's
 * fields under `version.`.
 */
export function whereSchema(e: QueryEntity, ctx: QuerySchemaContext, versions = false): Schema {
  const name = `${e.name}${versions ? 'Version' : ''}Where`
  if (ctx.schemas[name]) return ref(name)
  ctx.schemas[name] = {}
  const paths: WherePath[] = []
  const relations: string[] = []
  const hasCustomId = e.fields.some((f) => 'name' in f && f.name === 'id')
  const id = e.kind === 'collection' ? ctx.idSchema(e.slug) : { type: ['integer', 'string'] }
  if (versions) {
    const date = operatorsFor('date', { type: 'string', format: 'date-time' })
    paths.push(
      { path: 'id', operators: operatorsFor('id', { type: ['integer', 'string'] }) },
      ...(e.kind === 'collection' ? [{ path: 'parent', operators: operatorsFor('relationship', id) }] : []),
      { path: 'latest', operators: operatorsFor('checkbox', bool) },
      { path: 'autosave', operators: operatorsFor('checkbox', bool) },
      { path: 'createdAt', operators: date },
      { path: 'updatedAt', operators: date },
    )
    wherePaths(e.fields, ctx, 'version.', paths, relations)
  } else {
    if (!hasCustomId) paths.push({ path: 'id', operators: operatorsFor('id', id) })
    wherePaths(e.fields, ctx, '', paths, relations)
  }
  const properties: Record<string, Schema> = {
    and: { type: 'array', items: ref(name), minItems: 1, description: 'Every condition must hold.' },
    or: { type: 'array', items: ref(name), minItems: 1, description: 'At least one condition must hold.' },
  }
  for (const p of paths) properties[p.path] ??= operatorObject(p.operators)
  const schema: Schema = {
    type: 'object',
    description: `A query on ${versions ? 'the versions of ' : ''}\`${e.slug}\`: \`where[<field path>][<operator>]=<value>\` (\`qs\` brackets; dot notation for nested fields), combined with \`and\` / \`or\` arrays.`,
    properties,
    additionalProperties: false,
    minProperties: 1,
  }
  // Paths through a relationship (`heroImage.alt`) are the related collection's: any operator there.
  if (relations.length > 0) {
    schema.patternProperties = Object.fromEntries(relations.map((r) => [`^${escapeRegExp(r)}\\.[A-Za-z0-9_.]+$`, { type: 'object', minProperties: 1 }]))
  }
  ctx.schemas[name] = schema
  return ref(name)
}

/** Select of a field list: each field `true`/`false`, a nested select for groups, arrays and named tabs. */
function selectProperties(fields: Field[], ctx: QuerySchemaContext, out: Record<string, Schema>): void {
  for (const field of fields) {
    const f = field as Field & Record<string, any>
    if (f.type === 'ui') continue
    if (f.type === 'row' || f.type === 'collapsible' || (f.type === 'group' && !f.name)) {
      selectProperties(f.fields, ctx, out)
      continue
    }
    if (f.type === 'tabs') {
      for (const tab of f.tabs as Record<string, any>[]) {
        if (tab.name) out[tab.name] = nestedSelect(tab.fields, ctx)
        else selectProperties(tab.fields, ctx, out)
      }
      continue
    }
    if (!f.name || f.hidden === true) continue
    out[f.name] = f.type === 'group' || f.type === 'array' ? nestedSelect(f.fields, ctx) : bool
  }
}

function nestedSelect(fields: Field[], ctx: QuerySchemaContext): Schema {
  const inner: Record<string, Schema> = {}
  selectProperties(fields, ctx, inner)
  return { anyOf: [bool, { type: 'object', properties: inner, additionalProperties: false }] }
}

/**
 * `<Name>Select`: the fields to return (`select[title]=true`), or to leave out (`select[body]=false`); `id` is
 * always returned. Nested for groups, arrays and named tabs (`select[meta][title]=true`). With `versions`, the
 * select of a version row, the document's fields under `version`.
 */
export function selectSchema(e: QueryEntity, ctx: QuerySchemaContext, versions = false): Schema {
  const name = `${e.name}${versions ? 'Version' : ''}Select`
  if (ctx.schemas[name]) return ref(name)
  const properties: Record<string, Schema> = {}
  selectProperties(e.fields, ctx, properties)
  delete properties.id
  const own = versions
    ? {
        version: { anyOf: [bool, { type: 'object', properties, additionalProperties: false }] },
        parent: bool,
        latest: bool,
        autosave: bool,
        createdAt: bool,
        updatedAt: bool,
      }
    : properties
  ctx.schemas[name] = {
    type: 'object',
    description: `Fields of ${versions ? 'a version of ' : ''}\`${e.slug}\` to return (\`true\`) or leave out (\`false\`); \`id\` always comes back. Fields left out are absent from the answer, required ones too.`,
    properties: own,
    additionalProperties: false,
  }
  return ref(name)
}

/** `Populate`: per collection slug (those a field relates to), the select applied to its documents wherever they are populated. */
export function populateSchema(ctx: QuerySchemaContext, slugs: Iterable<string>): Schema {
  if (!ctx.schemas.Populate) {
    ctx.schemas.Populate = {
      type: 'object',
      description: 'Per collection, the fields of its populated documents (`populate[images][url]=true`).',
      properties: Object.fromEntries(
        [...slugs].filter((slug) => ctx.config.collections.some((c) => c.slug === slug)).map((slug) => [slug, selectSchema(ctx.entity(slug), ctx)]),
      ),
      additionalProperties: false,
    }
  }
  return ref('Populate')
}

/** Paths of the join fields of a collection (`<group>.<join>` inside named groups and tabs). */
export function joinFieldPaths(fields: Field[], prefix = ''): { path: string; collection: string | string[] }[] {
  const out: { path: string; collection: string | string[] }[] = []
  for (const field of fields) {
    const f = field as Field & Record<string, any>
    if (f.type === 'join' && f.name) out.push({ path: `${prefix}${f.name}`, collection: f.collection })
    else if (f.type === 'row' || f.type === 'collapsible' || (f.type === 'group' && !f.name)) out.push(...joinFieldPaths(f.fields, prefix))
    else if (f.type === 'group' && f.name) out.push(...joinFieldPaths(f.fields, `${prefix}${f.name}.`))
    else if (f.type === 'tabs') for (const tab of f.tabs) out.push(...joinFieldPaths(tab.fields, 'name' in tab && tab.name ? `${prefix}${tab.name}.` : prefix))
  }
  return out
}

/** `<Name>Joins`: per join field, `false` (not computed) or its page of documents (`limit`, `page`, `sort`, `where`, `count`). */
export function joinsSchema(e: QueryEntity, ctx: QuerySchemaContext): Schema | undefined {
  const joins = joinFieldPaths(e.fields)
  if (joins.length === 0) return undefined
  const name = `${e.name}Joins`
  if (!ctx.schemas[name]) {
    const properties = Object.fromEntries(
      joins.map((j) => {
        const target = typeof j.collection === 'string' ? ctx.entity(j.collection) : undefined
        const options: Schema = {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 0 },
            page: { type: 'integer', minimum: 1 },
            sort: { type: 'string' },
            count: bool,
            ...(target ? { where: whereSchema(target, ctx) } : {}),
          },
          additionalProperties: false,
        }
        return [j.path, { anyOf: [{ const: false }, options] }]
      }),
    )
    ctx.schemas[name] = {
      type: 'object',
      description: `Options of the join fields of \`${e.slug}\`, by field path: \`false\` leaves the join out.`,
      properties,
      additionalProperties: false,
    }
  }
  return ref(name)
}
