/**
 * @module plugin-openapi/test/conformance/responseCheck
 * Checks one answer against the operation's documented responses: the status is listed (or a `default`),
 * the content type is one the response lists, a JSON body validates against its schema (Ajv, JSON Schema
 * 2020-12, formats on), and the headers it marks required are there.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

import type { DocumentedOperation } from './requestCases.js'
import { resolveRef, type Schema } from './schemaArbitrary.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void

/** An answer as received (a stream's first bytes only). */
export interface Answer {
  status: number
  headers: Headers
  bytes: Uint8Array
}

/** What is wrong with an answer, by kind. */
export interface Problem {
  kind: 'status not documented' | 'content type' | 'body schema' | 'header'
  detail: string
}

const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')
const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json')

/** The documented media type an answer's type matches: exact, `type/*` or `* /*`. */
function matchMediaType(content: Record<string, unknown>, type: string): string | undefined {
  if (type in content) return type
  const major = type.split('/')[0]
  return Object.keys(content).find((k) => k === '*/*' || (k.endsWith('/*') && k.split('/')[0] === major))
}

/** Validates answers of one document; compiled schemas are cached per JSON pointer. */
export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  private readonly validators = new Map<string, ValidateFunction | undefined>()

  constructor(private readonly doc: Schema) {
    addFormats(this.ajv)
    this.ajv.addSchema(doc, 'openapi.json')
  }

  /** The documented response of a status: exact, `5XX`-style range, or `default`. */
  documented(d: DocumentedOperation, status: number): { key: string; response: Schema } | undefined {
    const responses = (d.op.responses ?? {}) as Record<string, Schema>
    const key = [String(status), `${Math.floor(status / 100)}XX`, 'default'].find((k) => k in responses)
    return key ? { key, response: responses[key]! } : undefined
  }

  check(d: DocumentedOperation, answer: Answer): Problem[] {
    const found = this.documented(d, answer.status)
    if (!found) return [{ kind: 'status not documented', detail: `documented: ${Object.keys(d.op.responses ?? {}).join(', ')}` }]
    const { key, response: raw } = found
    const response = resolveRef(raw, this.doc)
    // A `$ref` response's schema lives under components.responses; an inline one under the operation.
    const base = raw.$ref ? `openapi.json${raw.$ref.slice(1)}` : `openapi.json#/paths/${esc(d.path)}/${d.method}/responses/${esc(key)}`
    const problems: Problem[] = []
    for (const [name, header] of Object.entries<Schema>(response.headers ?? {})) {
      if (resolveRef(header, this.doc).required && !answer.headers.has(name)) problems.push({ kind: 'header', detail: `required header ${name} is missing` })
    }
    const content = response.content as Record<string, Schema> | undefined
    if (!content) return problems
    const type = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
    if (!type) {
      problems.push({ kind: 'content type', detail: `no Content-Type (${answer.bytes.length} bytes); documented: ${Object.keys(content).join(', ')}` })
      return problems
    }
    const mediaType = matchMediaType(content, type)
    if (!mediaType) {
      problems.push({ kind: 'content type', detail: `${type}; documented: ${Object.keys(content).join(', ')}` })
      return problems
    }
    if (!isJson(mediaType) || !content[mediaType]!.schema) return problems
    let body: unknown
    const text = new TextDecoder().decode(answer.bytes)
    try {
      body = JSON.parse(text)
    } catch {
      problems.push({ kind: 'body schema', detail: `not JSON: ${text.slice(0, 200)}` })
      return problems
    }
    const validate = this.validator(`${base}/content/${esc(mediaType)}/schema`)
    if (validate && !validate(body)) {
      const errors = this.ajv.errorsText(validate.errors?.slice(0, 4), { separator: '; ' })
      problems.push({ kind: 'body schema', detail: `${errors}; body: ${text.slice(0, 400)}` })
    }
    return problems
  }

  private validator(pointer: string): ValidateFunction | undefined {
    if (!this.validators.has(pointer)) this.validators.set(pointer, this.ajv.getSchema(pointer))
    return this.validators.get(pointer)
  }
}
