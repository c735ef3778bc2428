/**
 * @module plugin-openapi/test/conformance/requestCases
 * Requests for one documented operation, generated from its parameters and request body: valid ones (every
 * value as the document allows) and invalid ones (one value breaking one rule the document states). Query
 * values are serialized as the document says (`form`, `deepObject` with `qs`-style nesting as Payload parses
 * it); bodies as JSON, `multipart/form-data` (a JSON part from `contentSchema`) or raw bytes.
 */
import fc from 'fast-check'

import { resolveRef, valueFor, violationsFor, type ArbitraryContext, type Schema } from './schemaArbitrary.js'

/** One documented operation, its parameters resolved. */
export interface DocumentedOperation {
  operationId: string
  method: string
  /** The OpenAPI path template, e.g. `/api/posts/{id}`. */
  path: string
  op: Schema
  parameters: Schema[]
}

/** A generated request. */
export interface RequestCase {
  operationId: string
  kind: 'valid' | 'invalid'
  /** For an invalid case: where and what is broken, e.g. `query limit: minimum`. */
  broken?: string
  method: string
  /** Path and query, e.g. `/api/posts?limit=3`. */
  url: string
  /** Without credentials (an operation that allows anonymous access, or to see its 401/403). */
  anonymous: boolean
  body?: { contentType?: string; data: string | Uint8Array | FormData }
  /** A short description for a finding (the body cut to a few hundred characters). */
  summary: string
  /** The values sent, before serialization (what known failures are recognised by). */
  values: { params: Record<string, unknown>; body?: unknown }
}

/** Values the target knows (existing IDs, job names, files), offered beside generated ones. */
export interface CaseExamples {
  /** Candidates for a parameter, e.g. existing document IDs for `{id}`. */
  parameter?(op: DocumentedOperation, name: string): unknown[]
  /** Candidate IDs of a collection, for relationship fields in bodies. */
  idsOf?(slug: string): unknown[]
  /** File parts to upload: name, type and bytes. */
  files?: { name: string; type: string; bytes: Uint8Array }[]
}

/** Every operation of a document, with path-level and component parameters resolved. */
export function documentedOperations(doc: Schema): DocumentedOperation[] {
  const out: DocumentedOperation[] = []
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(method)) continue
      const own = ((op.parameters ?? []) as Schema[]).map((p) => resolveRef(p, doc))
      const shared = ((item.parameters ?? []) as Schema[]).map((p) => resolveRef(p, doc)).filter((p) => !own.some((o) => o.name === p.name && o.in === p.in))
      out.push({ operationId: op.operationId ?? `${method.toUpperCase()} ${path}`, method, path, op, parameters: [...shared, ...own] })
    }
  }
  return out
}

const text = (v: unknown): string => (typeof v === 'string' ? v : v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v))

/** `qs`-style pairs of a deepObject value: `where[title][equals]=x`, `where[or][0][id][equals]=1`. */
function deepPairs(prefix: string, value: unknown, out: [string, string][]): void {
  if (Array.isArray(value)) value.forEach((v, i) => deepPairs(`${prefix}[${i}]`, v, out))
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) deepPairs(`${prefix}[${k}]`, v, out)
  else out.push([prefix, text(value)])
}

/** The query-string pairs of one parameter value, as its `style` and `explode` say. */
export function queryPairs(param: Schema, value: unknown): [string, string][] {
  const out: [string, string][] = []
  const style = param.style ?? 'form'
  const explode = param.explode ?? style === 'form'
  if (style === 'deepObject' && value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) deepPairs(`${param.name}[${k}]`, v, out)
  } else if (Array.isArray(value)) {
    if (explode) for (const v of value) out.push([param.name, text(v)])
    else out.push([param.name, value.map(text).join(',')])
  } else if (value && typeof value === 'object' && style === 'form' && explode) {
    for (const [k, v] of Object.entries(value)) out.push([k, text(v)])
  } else {
    out.push([param.name, text(value)])
  }
  return out
}

/** A path parameter's value as one segment: `.` and `..` percent-encoded, or fetch would resolve them as dot segments. */
const pathSegment = (value: unknown) => {
  const segment = encodeURIComponent(text(value))
  return /^\.{1,2}$/.test(segment) ? segment.replace(/\./g, '%2E') : segment
}

const encode = (pairs: [string, string][]) =>
  pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`).join('&')

interface Parts {
  params: Record<string, unknown>
  mediaType?: string
  body?: unknown
  anonymous: boolean
}

const isBinary = (s: Schema) => s.format === 'binary' || s.contentMediaType === 'application/octet-stream'

/** The multipart form of a body value: binary properties as file parts, `contentSchema` ones as JSON text. */
function formOf(value: Record<string, unknown>, schema: Schema, doc: Schema): FormData {
  const form = new FormData()
  for (const [name, v] of Object.entries(value)) {
    const prop = resolveRef(schema.properties?.[name], doc)
    if (v instanceof Uint8Array) form.append(name, new Blob([Buffer.from(v)]), 'upload.bin')
    else if (v && typeof v === 'object' && 'bytes' in v) {
      const file = v as { name: string; type: string; bytes: Uint8Array }
      form.append(name, new Blob([Buffer.from(file.bytes)], { type: file.type }), file.name)
    } else form.append(name, prop.contentSchema || typeof v !== 'string' ? JSON.stringify(v) : v)
  }
  return form
}

/** The body value's arbitrary for one media type. */
function bodyValue(mediaType: string, media: Schema, ctx: ArbitraryContext, examples: CaseExamples): fc.Arbitrary<unknown> {
  const schema = resolveRef(media.schema, ctx.doc)
  const file = fc.oneof(
    ...(examples.files?.length ? [fc.constantFrom(...examples.files)] : []),
    fc.uint8Array({ minLength: 0, maxLength: 64 }).map((bytes) => ({ name: 'random.bin', type: 'application/octet-stream', bytes })),
  )
  if (mediaType === 'multipart/form-data') {
    const properties = (schema.properties ?? {}) as Record<string, Schema>
    const required = new Set<string>(schema.required ?? [])
    const model = Object.fromEntries(
      Object.entries(properties).map(([name, p]) => {
        const prop = resolveRef(p, ctx.doc)
        return [name, isBinary(prop) ? file : valueFor(prop.contentSchema ?? prop, ctx)]
      }),
    )
    return fc.record(model, { requiredKeys: [...required].filter((n) => n in model) })
  }
  if (isBinary(schema) || !/json/.test(mediaType)) return file.map((f) => f.bytes)
  return valueFor(schema, ctx)
}

function buildCase(d: DocumentedOperation, parts: Parts, doc: Schema, kind: RequestCase['kind'], broken?: string): RequestCase {
  let url = d.path
  const query: [string, string][] = []
  for (const p of d.parameters) {
    if (!(p.name in parts.params) || p.in === 'header' || p.in === 'cookie') continue
    const value = parts.params[p.name]
    if (p.in === 'path') url = url.replace(`{${p.name}}`, pathSegment(value))
    else if (p.in === 'query' && value !== undefined) query.push(...queryPairs(p, value))
  }
  if (query.length > 0) url += `?${encode(query)}`
  let body: RequestCase['body']
  if (parts.mediaType && parts.body !== undefined) {
    const media = d.op.requestBody?.content?.[parts.mediaType] ?? {}
    if (parts.mediaType === 'multipart/form-data') body = { data: formOf(parts.body as Record<string, unknown>, resolveRef(media.schema, doc), doc) }
    else if (parts.body instanceof Uint8Array) body = { contentType: parts.mediaType, data: parts.body }
    else
      body = {
        contentType: parts.mediaType,
        data: typeof parts.body === 'string' && broken?.endsWith('malformed JSON') ? parts.body : JSON.stringify(parts.body),
      }
  }
  const shown = body
    ? ` ${body.data instanceof FormData ? '(multipart)' : body.data instanceof Uint8Array ? `(${body.data.length} bytes)` : String(body.data).slice(0, 300)}`
    : ''
  return {
    operationId: d.operationId,
    kind,
    ...(broken ? { broken } : {}),
    method: d.method.toUpperCase(),
    url,
    anonymous: parts.anonymous,
    ...(body ? { body } : {}),
    summary: `${d.method.toUpperCase()} ${url}${shown}${parts.anonymous ? ' (anonymous)' : ''}`,
    values: { params: parts.params, ...(parts.body !== undefined ? { body: parts.body } : {}) },
  }
}

/** Whether the operation lets an anonymous caller in (`security` absent, empty, or listing `{}`). */
export function allowsAnonymous(d: DocumentedOperation, doc: Schema): boolean {
  const security = (d.op.security ?? doc.security) as Schema[] | undefined
  return !security || security.length === 0 || security.some((r) => Object.keys(r).length === 0)
}

/** An arbitrary of valid parts: every required parameter, optional ones now and then, a body as documented. */
function validParts(d: DocumentedOperation, ctx: ArbitraryContext, examples: CaseExamples): fc.Arbitrary<Parts> {
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  const required: string[] = []
  for (const p of d.parameters) {
    if (p.in !== 'path' && p.in !== 'query') continue
    const known = examples.parameter?.(d, p.name) ?? []
    // An empty path parameter would address another route (`/jobs//logs`), not this operation.
    const generated = p.in === 'path' ? valueFor(p.schema, ctx).filter((v) => text(v) !== '') : valueFor(p.schema, ctx)
    model[p.name] = known.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: generated, weight: 1 }) : generated
    if (p.required) required.push(p.name)
  }
  const params = fc.record(model, { requiredKeys: required })
  const content = (d.op.requestBody?.content ?? {}) as Record<string, Schema>
  const mediaTypes = Object.keys(content)
  const body: fc.Arbitrary<{ mediaType?: string; body?: unknown }> =
    mediaTypes.length === 0
      ? fc.constant({})
      : fc.constantFrom(...mediaTypes).chain((mediaType) => {
          const value = bodyValue(mediaType, content[mediaType]!, ctx, examples).map((b) => ({ mediaType, body: b }))
          return d.op.requestBody?.required ? value : fc.oneof({ arbitrary: value, weight: 3 }, { arbitrary: fc.constant({}), weight: 1 })
        })
  // Anonymous now and then, to see the documented 401/403 of operations that need a credential.
  const anonymous = fc.oneof({ arbitrary: fc.constant(false), weight: 6 }, { arbitrary: fc.constant(true), weight: 1 })
  return fc.tuple(params, body, anonymous).map(([p, b, a]) => ({ params: p, ...b, anonymous: a }))
}

/** Valid requests of an operation. */
export function validCases(d: DocumentedOperation, ctx: ArbitraryContext, examples: CaseExamples): fc.Arbitrary<RequestCase> {
  return validParts(d, ctx, examples).map((parts) => buildCase(d, parts, ctx.doc, 'valid'))
}

interface Breaker {
  where: string
  apply(parts: Parts): Parts
}

/** Every single-rule break of an operation's parameters and body. */
function breakers(d: DocumentedOperation, ctx: ArbitraryContext): Breaker[] {
  const out: Breaker[] = []
  for (const p of d.parameters) {
    if (p.in !== 'path' && p.in !== 'query') continue
    for (const v of violationsFor(p.schema, ctx, 'text')) {
      if (p.in === 'path' && text(v.apply(undefined)) === '') continue
      out.push({
        where: `${p.in} ${p.name}: ${v.rule}`,
        apply: (parts) => ({ ...parts, params: { ...parts.params, [p.name]: v.apply(parts.params[p.name]) } }),
      })
    }
    if (p.required && p.in === 'query') {
      out.push({
        where: `query ${p.name}: required`,
        apply: (parts) => {
          const params = { ...parts.params }
          delete params[p.name]
          return { ...parts, params }
        },
      })
    }
  }
  const json = d.op.requestBody?.content?.['application/json'] as Schema | undefined
  if (json) {
    const withJson = (parts: Parts, body: unknown): Parts => ({ ...parts, mediaType: 'application/json', body })
    out.push({ where: 'body: malformed JSON', apply: (parts) => withJson(parts, '{"unterminated": ') })
    for (const v of violationsFor(json.schema, ctx, 'body')) {
      out.push({
        where: `body ${v.rule}`,
        apply: (parts) => withJson(parts, v.apply(parts.mediaType === 'application/json' && parts.body !== undefined ? parts.body : {})),
      })
    }
  }
  return out
}

/** Invalid requests of an operation (one broken rule each); `undefined` when the document states no rule to break. */
export function invalidCases(d: DocumentedOperation, ctx: ArbitraryContext, examples: CaseExamples): fc.Arbitrary<RequestCase> | undefined {
  const all = breakers(d, ctx)
  if (all.length === 0) return undefined
  return fc
    .tuple(validParts(d, ctx, examples), fc.constantFrom(...all))
    .map(([parts, b]) => buildCase(d, { ...b.apply(parts), anonymous: false }, ctx.doc, 'invalid', b.where))
}
