/**
 * @module plugin-openapi/schemas/jsonSchema
 * Tiny JSON Schema helpers shared by the schema builders.
 */
import type { OpenAPIV3_1 } from '../openapi.js'

export type Schema = OpenAPIV3_1.SchemaObject

/** `#/components/schemas/<name>` reference. */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` })

/** The schema, also accepting `null` (JSON Schema 2020-12 style, no `nullable`). */
export function nullable(schema: Schema): Schema {
  if (Object.keys(schema).length === 0) return schema
  const type = schema.type
  if (typeof type === 'string' && !schema.anyOf && !schema.oneOf && !schema.$ref) {
    const out: Schema = { ...schema, type: [type, 'null'] }
    if (Array.isArray(schema.enum)) out.enum = [...(schema.enum as unknown[]), null]
    return out
  }
  if (Array.isArray(type) && !schema.$ref) {
    if (type.includes('null')) return schema
    const out: Schema = { ...schema, type: [...type, 'null'] }
    if (Array.isArray(schema.enum)) out.enum = [...(schema.enum as unknown[]), null]
    return out
  }
  if (Array.isArray(schema.anyOf)) {
    if ((schema.anyOf as Schema[]).some((s) => s.type === 'null')) return schema
    return { ...schema, anyOf: [...(schema.anyOf as Schema[]), { type: 'null' }] }
  }
  return { anyOf: [schema, { type: 'null' }] }
}

/** PascalCase of a slug or interface name (`blog-posts` -> `BlogPosts`). */
export function pascalCase(slug: string): string {
  const out = slug.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : '')).replace(/^./, (c) => c.toUpperCase())
  return /^[0-9]/.test(out) ? `_${out}` : out
}

/** An object schema from properties and the names that are required. */
export function objectSchema(properties: Record<string, Schema>, required: string[], extra: Schema = {}): Schema {
  const out: Schema = { type: 'object', ...extra, properties }
  if (required.length > 0) out.required = required
  return out
}
