/**
 * @module plugin-openapi/test/support/apiClient
 * Calls documented operations by operationId over real HTTP and validates every answer against the schema the
 * description gives for its status (Ajv 2020 + formats). Records what was called and what failed.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

type Schema = Record<string, any>

export interface CallOptions {
  params?: Record<string, string | number>
  query?: string
  body?: unknown
  multipart?: { file: { name: string; type: string; bytes: Uint8Array }; payload?: unknown }
  /** A raw request body (e.g. the bytes of a staged upload). */
  raw?: { type: string; bytes: Uint8Array }
  token?: string
  headers?: Record<string, string>
}

export interface CallResult {
  status: number
  body: any
  headers: Headers
}

export interface Check {
  operationId: string
  status: number
  ok: boolean
  problem?: string
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void

/**
 * Closes every object schema that lists `properties` and says nothing about extra ones, so that answers carrying
 * properties the description does not declare are caught.
 */
function closeObjects(node: any): any {
  if (Array.isArray(node)) node.forEach(closeObjects)
  else if (node && typeof node === 'object') {
    if (node.properties && node.additionalProperties === undefined && node.unevaluatedProperties === undefined) node.unevaluatedProperties = false
    for (const v of Object.values(node)) closeObjects(v)
  }
  return node
}

/** Escapes a JSON pointer segment. */
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')

export class ApiClient {
  readonly ops = new Map<string, { method: string; path: string; op: Schema }>()
  readonly checks: Check[] = []
  readonly called = new Set<string>()
  private readonly ajv: Ajv2020
  private readonly strictAjv: Ajv2020
  /** Answers with properties the description does not declare (validated with `unevaluatedProperties: false`). */
  readonly undeclared: string[] = []

  constructor(
    readonly baseUrl: string,
    readonly doc: Schema,
  ) {
    for (const [path, item] of Object.entries<Schema>(doc.paths)) {
      for (const [method, op] of Object.entries<Schema>(item)) this.ops.set(op.operationId, { method, path, op })
    }
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
    addFormats(this.ajv)
    this.ajv.addSchema(doc, 'openapi.json')
    this.strictAjv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
    addFormats(this.strictAjv)
    this.strictAjv.addSchema(closeObjects(structuredClone(doc)), 'openapi.json')
  }

  /** Calls an operation; the answer is validated and recorded. */
  async call(operationId: string, o: CallOptions = {}): Promise<CallResult> {
    const entry = this.ops.get(operationId)
    if (!entry) throw new Error(`operation ${operationId} is not documented`)
    this.called.add(operationId)
    const path = entry.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
      const v = o.params?.[name]
      if (v === undefined) throw new Error(`${operationId}: missing path parameter ${name}`)
      return encodeURIComponent(String(v))
    })
    const headers: Record<string, string> = { ...o.headers }
    if (o.token) headers.Authorization = `JWT ${o.token}`
    let body: BodyInit | undefined
    if (o.multipart) {
      const form = new FormData()
      form.append('file', new Blob([Buffer.from(o.multipart.file.bytes)], { type: o.multipart.file.type }), o.multipart.file.name)
      if (o.multipart.payload !== undefined) form.append('_payload', JSON.stringify(o.multipart.payload))
      body = form
    } else if (o.raw) {
      headers['Content-Type'] = o.raw.type
      body = Buffer.from(o.raw.bytes)
    } else if (o.body !== undefined) {
      headers['Content-Type'] = 'application/json'
      body = JSON.stringify(o.body)
    }
    const res = await fetch(`${this.baseUrl}${path}${o.query ? `?${o.query}` : ''}`, { method: entry.method.toUpperCase(), headers, body })
    const type = res.headers.get('content-type') ?? ''
    const parsed = type.includes('json') ? await res.json() : new Uint8Array(await res.arrayBuffer())
    this.validate(operationId, entry, res.status, type, parsed)
    return { status: res.status, body: parsed, headers: res.headers }
  }

  private validate(operationId: string, entry: { method: string; path: string; op: Schema }, status: number, type: string, body: unknown): void {
    const check = (ok: boolean, problem?: string): void => {
      this.checks.push({ operationId, status, ok, ...(problem ? { problem } : {}) })
    }
    if (status === 404 && typeof body === 'object' && body && /Route not found/.test(String((body as { message?: string }).message)))
      return check(false, 'route not found')
    if (status === 405) return check(false, 'method not allowed')
    const response = entry.op.responses[String(status)] ?? entry.op.responses.default
    if (!response) return check(false, `status ${status} not documented: ${JSON.stringify(body).slice(0, 300)}`)
    const resolved = response.$ref ? this.doc.components.responses[response.$ref.split('/').pop()] : response
    if (!resolved.content) return check(true)
    if (resolved.content['application/json']) {
      if (!type.includes('json')) return check(false, `expected JSON, got ${type}`)
      const pointer = response.$ref
        ? `openapi.json#/components/responses/${esc(response.$ref.split('/').pop())}/content/application~1json/schema`
        : `openapi.json#/paths/${esc(entry.path)}/${entry.method}/responses/${status}/content/application~1json/schema`
      const validate = this.ajv.getSchema(pointer)
      if (!validate) return check(false, `no schema at ${pointer}`)
      if (!validate(body)) return check(false, `${this.ajv.errorsText(validate.errors, { separator: '\n' })}\nbody: ${JSON.stringify(body).slice(0, 500)}`)
      // Schemas composed with allOf cannot be closed member by member: those answers are checked by the first pass only.
      const composed = JSON.stringify(response.$ref ? resolved : entry.op.responses[String(status)]).includes('allOf')
      const strict = composed ? undefined : this.strictAjv.getSchema(pointer)
      if (strict && !strict(body)) {
        for (const e of strict.errors ?? []) this.undeclared.push(`${operationId} ${status}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
      }
      return check(true)
    }
    return check(true)
  }

  /** The failures so far, readable. */
  failures(): string[] {
    return this.checks.filter((c) => !c.ok).map((c) => `${c.operationId} -> ${c.status}: ${c.problem}`)
  }
}
