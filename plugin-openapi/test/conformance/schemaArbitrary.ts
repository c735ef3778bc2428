/**
 * @module plugin-openapi/test/conformance/schemaArbitrary
 * fast-check arbitraries from the JSON Schemas (2020-12) of an OpenAPI document: `valueFor` yields values the
 * schema accepts (boundaries included: minimum, maximum, empty and longest strings, the smallest and largest
 * arrays), `violationsFor` yields values it refuses, each with what it breaks. Local `$ref`s are resolved in the
 * document; recursion stops at a fixed depth (an optional property is then left out).
 */
import fc from 'fast-check'

export type Schema = Record<string, any>

/** Values a schema names (known IDs, job names, file names) mixed into what is generated, by `x-` hint or parameter. */
export interface Examples {
  /** Candidates for a relationship's `x-payload-relationTo` target collection. */
  idsOf?(slug: string): unknown[]
}

export interface ArbitraryContext {
  doc: Schema
  examples?: Examples
}

const MAX_DEPTH = 5

/** Follows local `$ref`s (`#/components/...`). */
export function resolveRef(schema: Schema | undefined, doc: Schema): Schema {
  let s: Schema = schema ?? {}
  for (let hops = 0; typeof s.$ref === 'string' && hops < 32; hops++) {
    s = s.$ref
      .slice(2)
      .split('/')
      .reduce((node: Schema, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
  }
  return s ?? {}
}

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : [])

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  if (typeof s.pattern === 'string') {
    const re = new RegExp(s.pattern, 'u')
    try {
      return fc.stringMatching(re)
    } catch {
      // fast-check cannot build every pattern (lookaheads): generate text and keep what matches.
      return fc.string({ minLength: 1, maxLength: 24 }).filter((v) => re.test(v))
    }
  }
  const minLength = s.minLength ?? 0
  const maxLength = s.maxLength ?? Math.max(minLength, 24)
  switch (s.format) {
    case 'email':
      return fc.emailAddress()
    case 'date-time':
      return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString())
    case 'date':
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10))
    case 'uri':
      return fc.webUrl()
    default:
  }
  return fc.oneof(
    { arbitrary: fc.string({ minLength, maxLength }), weight: 4 },
    { arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }), weight: 1 },
    // The boundaries: the shortest and the longest string the schema allows.
    { arbitrary: fc.constantFrom('x'.repeat(minLength), 'y'.repeat(maxLength)), weight: 1 },
  )
}

function numberArbitrary(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + (integer ? 1 : Number.EPSILON) : s.minimum
  const max = typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - (integer ? 1 : Number.EPSILON) : s.maximum
  const boundaries = [min, max].filter((n): n is number => typeof n === 'number')
  const base = integer
    ? fc.integer({ min: typeof min === 'number' ? Math.ceil(min) : -(2 ** 31), max: typeof max === 'number' ? Math.floor(max) : 2 ** 31 - 1 })
    : fc.double({ min: min ?? -1e9, max: max ?? 1e9, noNaN: true, noDefaultInfinity: true })
  // Small values (0, 1, 2) and the documented bounds come up often: they are where servers differ.
  const small = fc.integer({ min: Math.max(typeof min === 'number' ? Math.ceil(min) : 0, 0), max: Math.min(typeof max === 'number' ? Math.floor(max) : 3, 3) })
  return fc.oneof(
    { arbitrary: base, weight: 3 },
    { arbitrary: small, weight: 2 },
    ...(boundaries.length ? [{ arbitrary: fc.constantFrom(...boundaries), weight: 1 }] : []),
  )
}

/** An arbitrary of values the schema accepts. */
export function valueFor(input: Schema | undefined, ctx: ArbitraryContext, depth = 0): fc.Arbitrary<unknown> {
  const s = resolveRef(input, ctx.doc)
  if ('const' in s) return fc.constant(s.const)
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]))
  const relationTo = s['x-payload-relationTo'] as string[] | undefined
  if (relationTo && ctx.examples?.idsOf && !s.items) {
    const known = relationTo.flatMap((slug) => ctx.examples!.idsOf!(slug))
    if (known.length > 0 && !s.oneOf && !s.anyOf)
      return fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: plain(s, ctx, depth), weight: 1 })
  }
  return plain(s, ctx, depth)
}

function plain(s: Schema, ctx: ArbitraryContext, depth: number): fc.Arbitrary<unknown> {
  const variants = (s.oneOf ?? s.anyOf) as Schema[] | undefined
  if (variants) {
    const usable = depth >= MAX_DEPTH ? variants.filter((v) => !resolveRef(v, ctx.doc).properties) : variants
    const pick = usable.length > 0 ? usable : variants.slice(0, 1)
    // Sibling keywords (a description, a type list beside anyOf) constrain every variant; merged shallowly.
    const { oneOf: _o, anyOf: _a, ...rest } = s
    return fc.oneof(...pick.map((v) => valueFor(Object.keys(rest).length > 1 ? { ...rest, ...resolveRef(v, ctx.doc) } : v, ctx, depth + 1)))
  }
  if (Array.isArray(s.allOf)) {
    const parts = (s.allOf as Schema[]).map((p) => valueFor(p, ctx, depth + 1))
    return fc.tuple(...parts).map((values) => Object.assign({}, ...values.filter((v) => v && typeof v === 'object')))
  }
  const types = typesOf(s)
  if (types.length === 0) {
    if (s.properties) return objectArbitrary(s, ctx, depth)
    if (s.items) return arrayArbitrary(s, ctx, depth)
    return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null))
  }
  return fc.oneof(...types.map((type) => typed(type, s, ctx, depth)))
}

function typed(type: string, s: Schema, ctx: ArbitraryContext, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return numberArbitrary(s, true)
    case 'number':
      return numberArbitrary(s, false)
    case 'string':
      return stringArbitrary(s)
    case 'array':
      return arrayArbitrary(s, ctx, depth)
    case 'object':
      return objectArbitrary(s, ctx, depth)
    default:
      return fc.constant(null)
  }
}

function arrayArbitrary(s: Schema, ctx: ArbitraryContext, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = s.minItems ?? 0
  const maxLength = depth >= MAX_DEPTH ? minLength : (s.maxItems ?? minLength + 3)
  return fc.array(valueFor(s.items ?? {}, ctx, depth + 1), { minLength, maxLength })
}

function objectArbitrary(s: Schema, ctx: ArbitraryContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (s.properties ?? {}) as Record<string, Schema>
  const required = new Set<string>((s.required as string[] | undefined) ?? [])
  const names = Object.keys(properties).filter((n) => required.has(n) || depth < MAX_DEPTH)
  const must = names.filter((n) => required.has(n))
  const optional = names.filter((n) => !required.has(n))
  const arb = (n: string) => valueFor(properties[n], ctx, depth + 1)
  // A few optional properties at a time: a query with every field and operator would not fit in a URL.
  const picks = fc.subarray(optional, { maxLength: Math.min(optional.length, 4) })
  const record = picks.chain((picked) => fc.record(Object.fromEntries([...must, ...picked].map((n) => [n, arb(n)]))))
  const extra = s.additionalProperties
  if (!extra || typeof extra !== 'object' || Object.keys(properties).length > 0 || depth >= MAX_DEPTH) return record
  // A map (additionalProperties with a schema, no fixed properties): keys from propertyNames when given.
  const keys = s.propertyNames ? (valueFor(s.propertyNames, ctx, depth + 1) as fc.Arbitrary<string>) : fc.string({ minLength: 1, maxLength: 8 })
  return fc.dictionary(keys, valueFor(extra, ctx, depth + 1), { maxKeys: 3 })
}

/** A way to break a schema: `apply` turns a valid value into one the schema refuses. */
export interface Violation {
  /** The rule broken, e.g. `type`, `minimum`, `required: title`, `title: maxLength`. */
  rule: string
  apply(valid: unknown): unknown
}

const constant = (rule: string, value: unknown): Violation => ({ rule, apply: () => value })

/**
 * Ways to break a schema, one rule each. `where` says how the value travels: in a query string or a path every
 * value is text, so a wrong JSON type of a string cannot be sent there. Empty when nothing the schema says can be
 * broken (a plain string in a query string), so the caller knows there is no negative case.
 */
export function violationsFor(input: Schema | undefined, ctx: ArbitraryContext, where: 'body' | 'text', depth = 0): Violation[] {
  const s = resolveRef(input, ctx.doc)
  if (s.anyOf || s.oneOf || s.allOf) return []
  const out: Violation[] = []
  const types = typesOf(s)
  const textual = types.length === 0 || types.includes('string')
  if (Array.isArray(s.enum) && !s.enum.includes('not-one-of-the-values')) out.push(constant('enum', 'not-one-of-the-values'))
  if (types.length > 0 && !textual) out.push(constant('type', types.includes('boolean') ? 'maybe' : 'AAA'))
  if (where === 'body' && types.length > 0 && !types.includes('number') && !types.includes('integer')) out.push(constant('type', 12345))
  if (types.includes('integer') && !types.includes('number')) out.push(constant('integer', 1.5))
  if (typeof s.minimum === 'number') out.push(constant('minimum', s.minimum - 1))
  if (typeof s.maximum === 'number') out.push(constant('maximum', s.maximum + 1))
  if (typeof s.minLength === 'number' && s.minLength > 0) out.push(constant('minLength', 'x'.repeat(s.minLength - 1)))
  if (typeof s.maxLength === 'number') out.push(constant('maxLength', 'x'.repeat(s.maxLength + 1)))
  if (typeof s.pattern === 'string') {
    const re = new RegExp(s.pattern, 'u')
    const bad = ['', '..', '../x', 'a/b', 'a\\b', ' ', '%2e%2e', '-x'].find((v) => !re.test(v))
    if (bad !== undefined) out.push(constant('pattern', bad))
  }
  if (s.format === 'email') out.push(constant('format: email', 'not an email'))
  if (s.format === 'date-time') out.push(constant('format: date-time', 'not a date'))
  if (where === 'body' && depth === 0 && (types.includes('object') || s.properties)) {
    const without = (name: string) => (valid: unknown) => {
      const copy = { ...(valid as Record<string, unknown>) }
      delete copy[name]
      return copy
    }
    for (const name of (s.required as string[] | undefined) ?? []) out.push({ rule: `required: ${name}`, apply: without(name) })
    for (const [name, prop] of Object.entries<Schema>(s.properties ?? {})) {
      for (const v of violationsFor(prop, ctx, 'body', depth + 1)) {
        out.push({ rule: `${name}: ${v.rule}`, apply: (valid) => ({ ...(valid as Record<string, unknown>), [name]: v.apply(undefined) }) })
      }
    }
  }
  return out
}
