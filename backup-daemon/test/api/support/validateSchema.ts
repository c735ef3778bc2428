/**
 * @module test/api/support/validateSchema
 * Checks a JSON value against a schema of the daemon's OpenAPI document, for the JSON Schema keywords
 * that document uses (`$ref`, `type`, `properties`, `required`, `items`, `enum`, `additionalProperties`,
 * `minLength`, `maxLength`, `anyOf`). Strict on purpose: a property the schema does not declare is an
 * error unless `additionalProperties` allows it, so the document must describe exactly what is served.
 * An unknown keyword fails loudly rather than being skipped.
 */

type Schema = Record<string, unknown>

const known = new Set([
  '$ref',
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'additionalProperties',
  'minLength',
  'maxLength',
  'anyOf',
  'description',
  'example',
  'format',
  'default',
  'minimum',
  'maximum',
])

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

/** Returns every mismatch as `<path>: <what>`; `[]` when `value` matches `schema`. */
export function validateSchema(value: unknown, schema: Schema, components: Record<string, Schema>, path = '$'): string[] {
  for (const key of Object.keys(schema)) if (!known.has(key)) return [`${path}: schema keyword "${key}" is not supported by this validator`]
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '')
    const target = components[name]
    return target ? validateSchema(value, target, components, path) : [`${path}: unknown $ref ${schema.$ref}`]
  }
  if (Array.isArray(schema.anyOf)) {
    const results = (schema.anyOf as Schema[]).map((s) => validateSchema(value, s, components, path))
    return results.some((r) => r.length === 0) ? [] : [`${path}: matches none of anyOf (${results.map((r) => r.join('; ')).join(' | ')})`]
  }
  const errors: string[] = []
  const actual = typeOf(value)
  if (typeof schema.type === 'string') {
    const ok = schema.type === actual || (schema.type === 'number' && actual === 'integer')
    if (!ok) return [`${path}: expected ${schema.type}, got ${actual}`]
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`)
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) errors.push(`${path}: shorter than ${schema.minLength}`)
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) errors.push(`${path}: longer than ${schema.maxLength}`)
  }
  if (actual === 'array' && schema.items) {
    ;(value as unknown[]).forEach((item, i) => errors.push(...validateSchema(item, schema.items as Schema, components, `${path}[${i}]`)))
  }
  // An object schema without `properties` (e.g. `{}` for "any value") constrains no members.
  if (actual === 'object' && (schema.properties || schema.additionalProperties !== undefined)) {
    const object = value as Record<string, unknown>
    const properties = (schema.properties ?? {}) as Record<string, Schema>
    for (const key of (schema.required ?? []) as string[]) if (!(key in object)) errors.push(`${path}: missing required "${key}"`)
    for (const [key, item] of Object.entries(object)) {
      if (properties[key]) errors.push(...validateSchema(item, properties[key], components, `${path}.${key}`))
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
        errors.push(...validateSchema(item, schema.additionalProperties as Schema, components, `${path}.${key}`))
      else if (schema.additionalProperties !== true && !(schema.additionalProperties && typeof schema.additionalProperties === 'object'))
        errors.push(`${path}: "${key}" is not declared`)
    }
  }
  return errors
}
