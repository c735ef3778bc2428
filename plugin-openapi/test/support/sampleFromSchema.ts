/**
 * @module plugin-openapi/test/support/sampleFromSchema
 * Builds a request body from a documented schema (every property, the first variant of a union), so the test can
 * prove that bodies following the description are accepted. Relationship IDs come from documents created earlier
 * (`x-payload-relationTo` names the target collections).
 */
type Schema = Record<string, any>

export interface SampleContext {
  doc: Schema
  /** An existing ID per collection slug. */
  ids: Record<string, string | number | undefined>
  /** Property names left out (e.g. fields the server computes for uploads). */
  skip?: string[]
}

let counter = 0

function resolve(schema: Schema, doc: Schema): Schema {
  let s = schema
  while (s && typeof s.$ref === 'string') {
    s = s.$ref
      .slice(2)
      .split('/')
      .reduce((node: Schema, key: string) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
  }
  return s
}

const LEXICAL = {
  root: {
    type: 'root',
    format: '',
    indent: 0,
    version: 1,
    direction: 'ltr',
    children: [
      {
        type: 'paragraph',
        format: '',
        indent: 0,
        version: 1,
        direction: 'ltr',
        textFormat: 0,
        children: [{ type: 'text', text: 'Hello', format: 0, style: '', mode: 'normal', detail: 0, version: 1 }],
      },
    ],
  },
}

/** A value valid for the schema; `undefined` when none can be made (e.g. a relationship without a target yet). */
export function sampleFromSchema(input: Schema, ctx: SampleContext, depth = 0): unknown {
  const s = resolve(input, ctx.doc)
  if (depth > 8) return undefined
  if (s['x-payload-relationTo']) {
    const targets: string[] = s['x-payload-relationTo']
    if (s.type === 'array') {
      const one = sampleFromSchema(s.items, ctx, depth + 1)
      return one === undefined ? [] : [one]
    }
    const slug = targets.find((t) => ctx.ids[t] !== undefined)
    if (!slug) return undefined
    if (s.oneOf || s.properties?.relationTo) {
      return { relationTo: slug, value: ctx.ids[slug] }
    }
    return ctx.ids[slug]
  }
  if (s['x-payload-field'] === 'richText') return LEXICAL
  if ('const' in s) return s.const
  const variants: Schema[] | undefined = s.oneOf ?? s.anyOf
  if (variants) {
    for (const v of variants) {
      if (resolve(v, ctx.doc).type === 'null') continue
      const value = sampleFromSchema(v, ctx, depth + 1)
      if (value !== undefined) return value
    }
    return undefined
  }
  if (Array.isArray(s.enum)) return s.enum.find((v: unknown) => v !== null)
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type
  switch (type) {
    case 'string': {
      counter++
      if (s.format === 'email') return `sample${counter}@example.com`
      if (s.format === 'date-time') return new Date(Date.UTC(2026, 0, 1 + (counter % 28))).toISOString()
      if (s.format === 'password') return `Pw-${counter}-secret`
      const text = `sample-${counter}`
      return typeof s.maxLength === 'number' ? text.slice(0, s.maxLength) : text
    }
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum + 1 : 1
    case 'boolean':
      return true
    case 'array': {
      const n = Math.max(1, s.minItems ?? 1)
      const items: unknown[] = []
      for (let i = 0; i < n; i++) {
        const v = sampleFromSchema(s.items ?? {}, ctx, depth + 1)
        if (v !== undefined) items.push(v)
      }
      return items
    }
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [name, prop] of Object.entries<Schema>(s.properties ?? {})) {
        if (depth === 0 && ctx.skip?.includes(name)) continue
        if (name === 'id' && depth > 0 && !s.required?.includes('id')) continue // row IDs are assigned by the server
        const v = sampleFromSchema(prop, ctx, depth + 1)
        if (v !== undefined) out[name] = v
      }
      return out
    }
    default:
      return Object.keys(s).length === 0 || s.description ? { sample: counter++ } : undefined
  }
}
