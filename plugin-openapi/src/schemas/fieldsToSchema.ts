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
  /** Reference to the component schema of a block in a mode (its read schema as an entity that saves drafts stores it, with `drafts`). */
  blockRef(block: Block, mode: SchemaMode, drafts?: boolean): Schema
  /** Resolves a block slug of `blockReferences`. */
  blockBySlug(slug: string): Block | undefined
  /** Locale codes when localization is on. */
  localeCodes?: string[]
  /**
   * The entity saves drafts that Payload does not validate (`versions.drafts` without `validate: true`): a draft
   * may leave required fields empty, so they are `null`-able on reads and optional in create bodies (Payload checks
   * them when publishing), and it stores any value of a field's type, so reads promise the type only (no bounds,
   * lengths, options or formats: a draft saved `views: -1` or `status: "zzz"` reads back so).
   */
  drafts?: boolean
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
        out.properties[tab.name] = wrap(schema, { ...tab, type: 'group' }, mode, ctx, mode !== 'read')
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
  // Reads list no required field: `select` leaves out any field (required ones too), so only the type is promised;
  // a required field is never null there, unless drafts may leave it empty, or it relates to a document that
  // has since been deleted (the reference then reads as null).
  const dangling = mode === 'read' && (f.type === 'relationship' || f.type === 'upload') && !f.hasMany
  const never = f.required === true && !ctx.drafts && !dangling
  const isRequired = mode === 'create' && never && f.defaultValue === undefined
  // In bodies an array, blocks or group field takes rows or an object, never null: Payload 3.90 (and hooks that
  // read nested values, like the storage plugin's `hostData.stream`) fail (500) on `null` there.
  const rows = mode !== 'read' && (f.type === 'array' || f.type === 'blocks' || f.type === 'group')
  out.properties[f.name] = wrap(value, f, mode, ctx, mode === 'read' ? never : isRequired || rows)
  if (isRequired) out.required.push(f.name)
}

function mergeInto(out: Walked, inner: Walked): void {
  Object.assign(out.properties, inner.properties)
  out.required.push(...inner.required.filter((n) => !out.required.includes(n)))
}

/** Applies description, localization (the `locale=all` shape on reads) and nullability (`null` unless `nonNull`). */
function wrap(schema: Schema, f: Record<string, any>, mode: SchemaMode, ctx: FieldSchemaContext, nonNull = false): Schema {
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
  if (!nonNull) s = nullable(s)
  const description = typeof f.admin?.description === 'string' ? f.admin.description : undefined
  return description ? { ...s, description } : s
}

/** `lenient`: a read of an entity whose drafts are not validated, where no row count is promised. */
function withRows(items: Schema, f: Record<string, any>, lenient: boolean): Schema {
  const s: Schema = { type: 'array', items }
  if (lenient) return s
  if (typeof f.minRows === 'number') s.minItems = f.minRows
  if (typeof f.maxRows === 'number') s.maxItems = f.maxRows
  return s
}

/** The options of a select or radio field, for the description of a read that does not promise them. */
const optionsText = (values: string[]) =>
  `One of ${values.map((v) => `\`${v}\``).join(', ')} in the write bodies; a draft may hold any text (Payload does not validate drafts).`

function valueSchema(f: Record<string, any>, mode: SchemaMode, ctx: FieldSchemaContext): Schema | undefined {
  // Reads of an entity whose drafts Payload saves unvalidated promise types, not the field's rules.
  const lenient = mode === 'read' && Boolean(ctx.drafts)
  switch (f.type) {
    case 'text':
    case 'textarea':
    case 'code':
    case 'email': {
      const s: Schema = { type: 'string' }
      if (lenient) return f.hasMany ? withRows(s, f, lenient) : s
      if (f.type === 'email') s.format = 'email'
      if (typeof f.minLength === 'number') s.minLength = f.minLength
      if (typeof f.maxLength === 'number') s.maxLength = f.maxLength
      return f.hasMany ? withRows(s, f, lenient) : s
    }
    case 'number': {
      const s: Schema = { type: 'number' }
      if (!lenient && typeof f.min === 'number') s.minimum = f.min
      if (!lenient && typeof f.max === 'number') s.maximum = f.max
      return f.hasMany ? withRows(s, f, lenient) : s
    }
    case 'checkbox':
      return { type: 'boolean' }
    case 'date':
      return { type: 'string', format: 'date-time' }
    case 'json':
      return f.jsonSchema?.schema && typeof f.jsonSchema.schema === 'object' ? { ...f.jsonSchema.schema } : {}
    case 'richText':
      // Reads promise no type: the editor writes JSON objects, but Payload stores any JSON value a request sends.
      return mode === 'read'
        ? { description: 'Rich text (editor JSON; whatever JSON value was saved through the API).', 'x-payload-field': 'richText' }
        : { type: 'object', description: 'Rich text (editor JSON).', additionalProperties: true, 'x-payload-field': 'richText' }
    case 'point':
      // A draft given one coordinate stores `[x, null]`.
      return lenient
        ? { type: 'array', description: '[longitude, latitude]', items: nullable({ type: 'number' }) }
        : { type: 'array', description: '[longitude, latitude]', items: { type: 'number' }, minItems: 2, maxItems: 2 }
    case 'select':
    case 'radio': {
      const values = (f.options as (string | { value: string })[]).map((o) => (typeof o === 'string' ? o : o.value))
      const s: Schema = lenient ? { type: 'string', description: optionsText(values) } : { type: 'string', enum: values }
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
      return withRows(objectSchema(props, inner.required), f, lenient)
    }
    case 'blocks': {
      const blocks: Block[] = (f.blockReferences ?? f.blocks ?? []).map((b: Block | string) => (typeof b === 'string' ? ctx.blockBySlug(b) : b)).filter(Boolean)
      if (blocks.length === 0) return withRows({ type: 'object' }, f, lenient)
      const refs = blocks.map((b) => ctx.blockRef(b, mode, lenient))
      const items: Schema = refs.length === 1 ? refs[0]! : { oneOf: refs }
      if (refs.length > 1) {
        items.discriminator = {
          propertyName: 'blockType',
          mapping: Object.fromEntries(blocks.map((b, i) => [b.slug, (refs[i] as { $ref: string }).$ref])),
        }
      }
      return withRows(items, f, lenient)
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
  return f.hasMany ? withRows(item, f, mode === 'read' && Boolean(ctx.drafts)) : item
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
