/**
 * @module plugin-openapi/schemas/fieldsToSchema
 * Walks Payload fields into JSON Schema properties, in one of three modes: `read` (what the API returns),
 * `create` and `update` (request bodies, spec rules 1-6).
 */
import type { Block, Field } from 'payload'

import { nullable, objectSchema, type Schema } from './jsonSchema.js'

export type SchemaMode = 'create' | 'read' | 'update'

/** What the walker needs from the document being built (kept small so it can be tested alone). */
export interface FieldSchemaContext {
  /** Schema of the ID of a collection (custom `id` field or the database adapter's type). */
  idSchema(slug: string): Schema
  /** Reference to the read schema of a collection, for populated relationships. */
  docRef(slug: string): Schema
  /** Reference to the component schema of a block in a mode. */
  blockRef(block: Block, mode: SchemaMode): Schema
  /** Resolves a block slug of `blockReferences`. */
  blockBySlug(slug: string): Block | undefined
  /** Locale codes when localization is on. */
  localeCodes?: string[]
}

interface Walked {
  properties: Record<string, Schema>
  required: string[]
}

/** True when an access function takes no parameter and returns false: the field can never be written (rule 5). */
export function isNeverAllowed(fn: unknown): boolean {
  if (typeof fn !== 'function' || fn.length > 0) return false
  try {
    return (fn as () => unknown)() === false
  } catch {
    return false
  }
}

/** Walks a field list into properties and required names. `topLevel` drops the timestamps from bodies (rule 4). */
export function fieldsToSchema(fields: Field[], mode: SchemaMode, ctx: FieldSchemaContext, topLevel = false): Walked {
  const out: Walked = { properties: {}, required: [] }
  for (const field of fields) walkField(field, mode, ctx, out, topLevel)
  return out
}

function walkField(field: Field, mode: SchemaMode, ctx: FieldSchemaContext, out: Walked, topLevel: boolean): void {
  const f = field as Field & Record<string, any>
  if (f.type === 'ui') return
  // Presentational containers: their fields sit on the parent object.
  if (f.type === 'row' || f.type === 'collapsible' || (f.type === 'group' && !f.name)) {
    mergeInto(out, fieldsToSchema(f.fields, mode, ctx, topLevel))
    return
  }
  if (f.type === 'tabs') {
    for (const tab of f.tabs as Record<string, any>[]) {
      if (tab.name) {
        const inner = fieldsToSchema(tab.fields, mode, ctx)
        const schema = objectSchema(inner.properties, inner.required)
        out.properties[tab.name] = wrap(schema, { ...tab, type: 'group' }, mode, ctx)
        if (mode === 'read' && inner.required.length > 0) out.required.push(tab.name)
      } else {
        mergeInto(out, fieldsToSchema(tab.fields, mode, ctx, topLevel))
      }
    }
    return
  }
  if (!('name' in f) || !f.name) return
  if (f.hidden === true) return
  if (mode !== 'read') {
    if (f.type === 'join' || f.virtual) return
    if (topLevel && (f.name === 'createdAt' || f.name === 'updatedAt')) return
    if (mode === 'create' && isNeverAllowed(f.access?.create)) return
    if (mode === 'update' && isNeverAllowed(f.access?.update)) return
  } else if (isNeverAllowed(f.access?.read)) {
    return
  }
  const value = valueSchema(f, mode, ctx)
  if (!value) return
  const isRequired = mode === 'read' ? f.required === true : mode === 'create' && f.required === true && f.defaultValue === undefined
  out.properties[f.name] = wrap(value, f, mode, ctx, isRequired)
  if (isRequired) out.required.push(f.name)
}

function mergeInto(out: Walked, inner: Walked): void {
  Object.assign(out.properties, inner.properties)
  out.required.push(...inner.required.filter((n) => !out.required.includes(n)))
}

/** Applies description, localization (the `locale=all` shape on reads) and nullability. */
function wrap(schema: Schema, f: Record<string, any>, mode: SchemaMode, ctx: FieldSchemaContext, required = false): Schema {
  let s = schema
  if (mode === 'read' && f.localized && ctx.localeCodes) {
    s = {
      anyOf: [
        s,
        {
          type: 'object',
          description: 'All locales (`locale=all`), keyed by locale code.',
          propertyNames: { enum: ctx.localeCodes },
          additionalProperties: nullable(s),
        },
      ],
    }
  }
  if (!required) s = nullable(s)
  const description = typeof f.admin?.description === 'string' ? f.admin.description : undefined
  return description ? { ...s, description } : s
}

function withRows(items: Schema, f: Record<string, any>): Schema {
  const s: Schema = { type: 'array', items }
  if (typeof f.minRows === 'number') s.minItems = f.minRows
  if (typeof f.maxRows === 'number') s.maxItems = f.maxRows
  return s
}

function valueSchema(f: Record<string, any>, mode: SchemaMode, ctx: FieldSchemaContext): Schema | undefined {
  switch (f.type) {
    case 'text':
    case 'textarea':
    case 'code':
    case 'email': {
      const s: Schema = { type: 'string' }
      if (f.type === 'email') s.format = 'email'
      if (typeof f.minLength === 'number') s.minLength = f.minLength
      if (typeof f.maxLength === 'number') s.maxLength = f.maxLength
      return f.hasMany ? withRows(s, f) : s
    }
    case 'number': {
      const s: Schema = { type: 'number' }
      if (typeof f.min === 'number') s.minimum = f.min
      if (typeof f.max === 'number') s.maximum = f.max
      return f.hasMany ? withRows(s, f) : s
    }
    case 'checkbox':
      return { type: 'boolean' }
    case 'date':
      return { type: 'string', format: 'date-time' }
    case 'json':
      return f.jsonSchema?.schema && typeof f.jsonSchema.schema === 'object' ? { ...f.jsonSchema.schema } : {}
    case 'richText':
      return { type: 'object', description: 'Rich text (editor JSON).', additionalProperties: true, 'x-payload-field': 'richText' }
    case 'point':
      return { type: 'array', description: '[longitude, latitude]', items: { type: 'number' }, minItems: 2, maxItems: 2 }
    case 'select':
    case 'radio': {
      const values = (f.options as (string | { value: string })[]).map((o) => (typeof o === 'string' ? o : o.value))
      const s: Schema = { type: 'string', enum: values }
      return f.hasMany ? { type: 'array', items: s } : s
    }
    case 'relationship':
    case 'upload':
      return relationSchema(f, mode, ctx)
    case 'join':
      return joinSchema(f, ctx)
    case 'group': {
      const inner = fieldsToSchema(f.fields, mode, ctx)
      return objectSchema(inner.properties, inner.required)
    }
    case 'array': {
      const inner = fieldsToSchema(f.fields, mode, ctx)
      const props = { id: mode === 'read' ? { type: 'string' } : nullable({ type: 'string' }), ...inner.properties }
      return withRows(objectSchema(props, inner.required), f)
    }
    case 'blocks': {
      const blocks: Block[] = (f.blockReferences ?? f.blocks ?? []).map((b: Block | string) => (typeof b === 'string' ? ctx.blockBySlug(b) : b)).filter(Boolean)
      if (blocks.length === 0) return withRows({ type: 'object' }, f)
      const refs = blocks.map((b) => ctx.blockRef(b, mode))
      const items: Schema = refs.length === 1 ? refs[0]! : { oneOf: refs }
      if (refs.length > 1) {
        items.discriminator = {
          propertyName: 'blockType',
          mapping: Object.fromEntries(blocks.map((b, i) => [b.slug, (refs[i] as { $ref: string }).$ref])),
        }
      }
      return withRows(items, f)
    }
    default:
      return undefined
  }
}

function relationSchema(f: Record<string, any>, mode: SchemaMode, ctx: FieldSchemaContext): Schema {
  const targets: string[] = Array.isArray(f.relationTo) ? f.relationTo : [f.relationTo]
  const one = (slug: string): Schema => (mode === 'read' ? { anyOf: [ctx.idSchema(slug), ctx.docRef(slug)] } : ctx.idSchema(slug))
  let item: Schema
  if (Array.isArray(f.relationTo)) {
    // Polymorphic: {relationTo, value} (rule 3); one variant per target so the value type follows relationTo.
    const variants = targets.map((slug) => objectSchema({ relationTo: { type: 'string', const: slug }, value: one(slug) }, ['relationTo', 'value']))
    item = variants.length === 1 ? variants[0]! : { oneOf: variants }
  } else {
    item = one(targets[0]!)
  }
  if (mode !== 'read') item = { ...item, 'x-payload-relationTo': targets }
  return f.hasMany ? withRows(item, f) : item
}

function joinSchema(f: Record<string, any>, ctx: FieldSchemaContext): Schema {
  const targets: string[] = Array.isArray(f.collection) ? f.collection : [f.collection]
  const doc = (slug: string): Schema => ({ anyOf: [ctx.idSchema(slug), ctx.docRef(slug)] })
  const item: Schema = Array.isArray(f.collection)
    ? {
        oneOf: targets.map((slug) => objectSchema({ relationTo: { type: 'string', const: slug }, value: doc(slug) }, ['relationTo', 'value'])),
      }
    : doc(targets[0]!)
  return objectSchema({ docs: { type: 'array', items: item }, hasNextPage: { type: 'boolean' }, totalDocs: { type: 'integer' } }, [], {
    description: 'Join: documents that refer to this one (read-only).',
  })
}
