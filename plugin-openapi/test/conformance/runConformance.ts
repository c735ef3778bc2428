/**
 * @module plugin-openapi/test/conformance/runConformance
 * Drives every operation of a document against its running server with generated requests (valid and
 * invalid, a fixed number per operation, reproducible from one seed) and checks every answer
 * (`responseCheck.ts`). A 5xx the document does not list is a finding unless it matches a known failure of the
 * server, which is recorded by name with its reason; an invalid request answered 2xx is counted and shown.
 */
import fc from 'fast-check'

import { documentedOperations, invalidCases, validCases, type CaseExamples, type DocumentedOperation, type RequestCase } from './requestCases.js'
import { ResponseChecker, type Answer, type Problem } from './responseCheck.js'
import type { Schema } from './schemaArbitrary.js'

/** A server failure the document cannot fix (a bug of the server's framework), named and explained. */
export interface KnownFailure {
  name: string
  /** Why it happens, with the upstream issue where one exists. */
  reason: string
  matches(c: RequestCase, answer: Answer, d: DocumentedOperation, problem?: Problem): boolean
}

/** A running server and how to talk to it. */
export interface ConformanceTarget {
  name: string
  /** Where the document's paths start (origin, plus the server URL's path when the paths are relative). */
  baseUrl: string
  doc: Schema
  /** Headers of a signed-in request (a session cookie or an Authorization header). */
  credentials(): Promise<Record<string, string>>
  examples: CaseExamples
  /** Runs before an operation's cases (refresh the IDs the examples offer). */
  prepare?(op: DocumentedOperation): Promise<void>
  /** Rewrites or drops (`undefined`) a case that would end the suite's own session or account. */
  adjust?(c: RequestCase): RequestCase | undefined
  /** Runs after an operation's cases (e.g. sign in again when a case ended the session). */
  after?(op: DocumentedOperation): Promise<void>
  /** The order operations are driven in (e.g. destructive ones last). */
  order?(ops: DocumentedOperation[]): DocumentedOperation[]
  /** Known server failures (5xx). */
  known: KnownFailure[]
  /** Known answers of the server to invalid requests that contradict the document (not its fault). */
  quirks?: KnownFailure[]
}

export interface Finding {
  operationId: string
  kind: string
  status: number
  detail: string
  request: string
  /** `valid` or the rule an invalid case broke. */
  input: string
  /** Reproduce: the seed and the case's index among the operation's cases. */
  seed: number
  index: number
}

export interface ConformanceReport {
  target: string
  seed: number
  runs: number
  operations: number
  requests: number
  findings: Finding[]
  /** Known failures seen, by name: count and one request. */
  known: Record<string, { count: number; reason: string; example: string }>
  /** Invalid requests answered 2xx, per operation and rule (the server is more lenient than the document). */
  acceptedInvalid: Record<string, number>
  statuses: Record<string, number>
  seconds: number
}

/** A stable per-operation seed, so adding an operation does not change the cases of the others. */
function seedOf(seed: number, operationId: string): number {
  let h = seed | 0
  for (let i = 0; i < operationId.length; i++) h = (Math.imul(h, 31) + operationId.charCodeAt(i)) | 0
  return h
}

/** Reads an answer; a never-ending stream (server-sent events) is read for a moment, then closed. */
async function receive(res: Response): Promise<Answer> {
  const type = res.headers.get('content-type') ?? ''
  if (!type.startsWith('text/event-stream') || !res.body) return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) }
  const reader = res.body.getReader()
  const first = await Promise.race([reader.read(), new Promise<{ value?: Uint8Array }>((resolve) => setTimeout(() => resolve({}), 1500))])
  await reader.cancel().catch(() => undefined)
  return { status: res.status, headers: res.headers, bytes: first.value ?? new Uint8Array() }
}

async function send(target: ConformanceTarget, c: RequestCase): Promise<Answer> {
  const headers: Record<string, string> = c.anonymous ? {} : await target.credentials()
  if (c.body?.contentType) headers['Content-Type'] = c.body.contentType
  const res = await fetch(`${target.baseUrl}${c.url}`, {
    method: c.method,
    headers,
    body: c.body ? (c.body.data instanceof Uint8Array ? Buffer.from(c.body.data) : c.body.data) : undefined,
    redirect: 'manual',
    signal: AbortSignal.timeout(60_000),
  })
  return receive(res)
}

/** Drives every operation of the target's document; `runs` valid and `runs` invalid cases each. */
export async function runConformance(target: ConformanceTarget, options: { seed: number; runs: number; only?: string }): Promise<ConformanceReport> {
  const started = Date.now()
  const checker = new ResponseChecker(target.doc)
  let ops = documentedOperations(target.doc)
  if (options.only) ops = ops.filter((d) => d.operationId === options.only)
  if (target.order) ops = target.order(ops)
  const report: ConformanceReport = {
    target: target.name,
    seed: options.seed,
    runs: options.runs,
    operations: ops.length,
    requests: 0,
    findings: [],
    known: {},
    acceptedInvalid: {},
    statuses: {},
    seconds: 0,
  }
  const ctx = { doc: target.doc, examples: { idsOf: (slug: string) => target.examples.idsOf?.(slug) ?? [] } }
  for (const d of ops) {
    await target.prepare?.(d)
    const seed = seedOf(options.seed, d.operationId)
    const invalid = invalidCases(d, ctx, target.examples)
    const cases = [
      ...fc.sample(validCases(d, ctx, target.examples), { seed, numRuns: options.runs }),
      ...(invalid ? fc.sample(invalid, { seed: seed + 1, numRuns: options.runs }) : []),
    ]
    for (const [index, generated] of cases.entries()) {
      const c = target.adjust ? target.adjust(generated) : generated
      if (!c) continue
      const finding = (kind: string, status: number, detail: string) =>
        report.findings.push({ operationId: d.operationId, kind, status, detail, request: c.summary, input: c.broken ?? 'valid', seed, index })
      let answer: Answer
      try {
        answer = await send(target, c)
      } catch (error) {
        finding('no answer', 0, (error as Error).message)
        continue
      }
      report.requests++
      report.statuses[String(answer.status)] = (report.statuses[String(answer.status)] ?? 0) + 1
      const recognised = (list: KnownFailure[] | undefined, problem?: Problem) => {
        const known = list?.find((k) => k.matches(c, answer, d, problem))
        if (known) (report.known[known.name] ??= { count: 0, reason: known.reason, example: `${c.summary} -> ${answer.status}` }).count++
        return Boolean(known)
      }
      if (answer.status >= 500 && !checker.documented(d, answer.status)) {
        if (!recognised(target.known)) finding('server error', answer.status, new TextDecoder().decode(answer.bytes).slice(0, 400))
        continue
      }
      for (const problem of checker.check(d, answer)) if (!recognised(target.quirks, problem)) finding(problem.kind, answer.status, problem.detail)
      if (c.kind === 'invalid' && answer.status < 300) {
        const key = `${d.operationId} ${c.broken}`
        report.acceptedInvalid[key] = (report.acceptedInvalid[key] ?? 0) + 1
      }
    }
    await target.after?.(d)
  }
  report.seconds = Math.round((Date.now() - started) / 100) / 10
  return report
}

/** Findings grouped by operation, kind and status, one example each: what a failing test prints. */
export function summarizeFindings(findings: Finding[]): string[] {
  const groups = new Map<string, { count: number; first: Finding }>()
  for (const f of findings) {
    const key = `${f.operationId} ${f.kind} ${f.status}`
    const g = groups.get(key)
    if (g) g.count++
    else groups.set(key, { count: 1, first: f })
  }
  return [...groups].map(
    ([key, { count, first }]) => `${key} (x${count}): ${first.detail}\n    ${first.request} [${first.input}; seed ${first.seed}, case ${first.index}]`,
  )
}

/**
 * Prints a report's figures as the suites show them: one JSON line (`response conformance: {...}`, which the
 * Payload 4 run reads back), the statuses, the known failures by name, and how many invalid requests were accepted.
 */
export function printReport(report: ConformanceReport): void {
  const { target, seed, runs, operations, requests, seconds } = report
  const known = Object.entries(report.known).map(([name, k]) => `${name}: ${k.count}`)
  const accepted = Object.values(report.acceptedInvalid).reduce((a, b) => a + b, 0)
  console.log(`      response conformance: ${JSON.stringify({ target, seed, runs, operations, requests, findings: report.findings.length, seconds })}`)
  console.log(`      statuses ${JSON.stringify(report.statuses)}`)
  console.log(`      known failures of the server (not the document's): ${known.join('; ') || 'none'}`)
  console.log(`      invalid requests the server accepted (it is more lenient than the document): ${accepted}`)
}
