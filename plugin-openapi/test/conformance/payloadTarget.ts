/**
 * @module plugin-openapi/test/conformance/payloadTarget
 * A running Payload CMS as a conformance target: signed in with a JWT of one user, every collection's IDs,
 * versions and file names offered to the generated requests, and a collection that generated deletes emptied
 * given a document again before the next operation. The suite keeps its own session alive: the signed-in
 * account is never a target of an update or delete (bulk writes on its collection are narrowed with `and` to
 * spare it), and a lost session is signed in again after the operation that ended it.
 */
import { cmsKnownFailures, cmsKnownQuirks } from './knownFailures.js'
import { documentedOperations, type CaseExamples, type DocumentedOperation, type RequestCase } from './requestCases.js'
import type { ConformanceTarget } from './runConformance.js'
import type { Schema } from './schemaArbitrary.js'

export interface PayloadTargetOptions {
  name: string
  /** Where the CMS answers, e.g. `http://localhost:3000`. */
  origin: string
  /** Its `routes.api` (the document's paths start with it), e.g. `/api`. */
  apiRoute: string
  doc: Schema
  /** The account the suite signs in as (an auth collection's slug and that user's credentials). */
  login: { collection: string; email: string; password: string }
  /** Per collection slug, the body of one new document (JSON, or a multipart form for an upload). */
  fixtures: Record<string, () => FormData | object>
  /** File parts the generated uploads send (random bytes are generated besides). */
  files: NonNullable<CaseExamples['files']>
}

const methodOrder: Record<string, number> = { get: 0, head: 0, post: 1, put: 2, patch: 2, delete: 3 }

/** Reads first, writes next, deletes after them; then whatever signs out, and logins (whose failures lock accounts) last. */
export function destructiveLast(ops: DocumentedOperation[], late: RegExp, last: RegExp): DocumentedOperation[] {
  const rank = (d: DocumentedOperation) => (last.test(d.operationId) ? 9 : late.test(d.operationId) ? 8 : (methodOrder[d.method] ?? 1))
  return [...ops].sort((a, b) => rank(a) - rank(b))
}

export async function json(url: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(url, init)
  return res.headers.get('content-type')?.includes('json') ? res.json() : undefined
}

/** `where[...]` of a bulk operation narrowed with `and` so that it never matches the signed-in user. */
function sparingUser(c: RequestCase, userId: unknown): RequestCase {
  const [path, query = ''] = c.url.split('?')
  const pairs = query ? query.split('&') : []
  const narrowed = pairs.map((p) => (p.startsWith('where[') ? `where[and][0]${p.slice('where'.length)}` : p))
  narrowed.push(`where[and][1][id][not_equals]=${encodeURIComponent(String(userId))}`)
  const url = `${path}?${narrowed.join('&')}`
  return { ...c, url, summary: c.summary.replace(c.url, url) }
}

/** A multipart upload body: the file part and every other field as the `_payload` JSON part, as Payload reads it. */
export function uploadForm(file: { name: string; type: string; bytes: Uint8Array }, data: object): FormData {
  const form = new FormData()
  form.append('file', new Blob([Buffer.from(file.bytes)], { type: file.type }), file.name)
  form.append('_payload', JSON.stringify(data))
  return form
}

export async function payloadTarget(options: PayloadTargetOptions): Promise<ConformanceTarget> {
  const { doc, apiRoute, login: account } = options
  const api = `${options.origin}${apiRoute}`
  const login = async () => {
    const res = await json(`${api}/${account.collection}/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: account.password }),
    })
    if (!res?.token) throw new Error(`${options.name}: ${account.email} cannot log in: ${JSON.stringify(res)}`)
    return res as { token: string; user: { id: unknown } }
  }
  let session = await login()
  const auth = () => ({ Authorization: `JWT ${session.token}` })
  const ids = new Map<string, unknown[]>()
  const existing = new Map<string, Set<string>>()
  const versions = new Map<string, unknown[]>()
  const files = new Map<string, string[]>()
  const ops = documentedOperations(doc)
  const prefix = new RegExp(`^${apiRoute.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/(globals/)?([^/{]+)`)
  const slugOf = (d: DocumentedOperation) => prefix.exec(d.path)?.[2] ?? ''
  const slugs = [...new Set(ops.filter((d) => !prefix.exec(d.path)?.[1]).map(slugOf))].filter((s) => s && s in options.fixtures)
  // The signed-in account's own bulk and by-ID writes (narrowed or dropped in `adjust`).
  const own = `${apiRoute}/${account.collection}`
  const bulkOnAccount = new Set(ops.filter((d) => d.path === own && (d.method === 'patch' || d.method === 'delete')).map((d) => d.operationId))
  const byIdOnAccount = new Set(ops.filter((d) => d.path === `${own}/{id}` && (d.method === 'patch' || d.method === 'delete')).map((d) => d.operationId))
  const list = async (slug: string) =>
    ((await json(`${api}/${slug}?limit=100&depth=0&sort=-createdAt`, { headers: auth() }))?.docs ?? []) as {
      id: unknown
      filename?: string
      sizes?: Record<string, { filename?: string }>
    }[]
  const refresh = async (which: Iterable<string>) => {
    for (const slug of which) {
      let docs = await list(slug)
      if (docs.length === 0) {
        const body = options.fixtures[slug]!()
        const form = body instanceof FormData
        await fetch(`${api}/${slug}`, {
          method: 'POST',
          headers: { ...auth(), ...(form ? {} : { 'Content-Type': 'application/json' }) },
          body: form ? body : JSON.stringify(body),
        })
        docs = await list(slug)
      }
      existing.set(slug, new Set(docs.map((d) => String(d.id))))
      // The signed-in account is never a target: updating or deleting it would end the suite's session.
      ids.set(
        slug,
        docs
          .slice(0, 8)
          .map((d) => d.id)
          .filter((id) => slug !== account.collection || id !== session.user.id),
      )
      files.set(
        slug,
        docs
          .slice(0, 4)
          .flatMap((d) => [d.filename, ...Object.values(d.sizes ?? {}).map((s) => s.filename)])
          .filter((f): f is string => typeof f === 'string'),
      )
    }
  }
  const refreshVersions = async (d: DocumentedOperation) => {
    const key = `${d.path.startsWith(`${apiRoute}/globals/`) ? 'globals/' : ''}${slugOf(d)}`
    const v = await json(`${api}/${key}/versions?limit=5&depth=0`, { headers: auth() })
    versions.set(
      key,
      ((v?.docs ?? []) as { id: unknown }[]).map((x) => x.id),
    )
  }
  await refresh(slugs)
  // Reads change nothing, and a write changes its own collection's documents (no fixture collection has hooks
  // writing into another): a listing is read again only after an operation that may have written to it.
  const stale = new Set<string>()
  return {
    name: options.name,
    baseUrl: options.origin,
    doc,
    credentials: async () => auth(),
    examples: {
      idsOf: (slug) => ids.get(slug) ?? [],
      parameter(d, name) {
        const slug = slugOf(d)
        const global = d.path.startsWith(`${apiRoute}/globals/`)
        if (name === 'id' && d.path.includes('/versions/')) return versions.get(global ? `globals/${slug}` : slug) ?? []
        if (name === 'id' && !global && !d.path.includes('/verify/')) return ids.get(slug) ?? []
        if (name === 'filename') return files.get(slug) ?? []
        return []
      },
      files: options.files,
    },
    async prepare(d) {
      await refresh(stale)
      stale.clear()
      if (d.path.includes('/versions')) await refreshVersions(d)
    },
    adjust(c) {
      if (bulkOnAccount.has(c.operationId)) return sparingUser(c, session.user.id)
      // Generated small IDs reach the signed-in account too: changing or deleting it would end the session.
      if (byIdOnAccount.has(c.operationId) && String(c.values.params.id) === String(session.user.id)) return undefined
      return c
    },
    async after(d) {
      const slug = prefix.exec(d.path)?.[1] ? undefined : slugOf(d)
      if (d.method !== 'get' && d.method !== 'head' && slug && slugs.includes(slug)) stale.add(slug)
      const me = await json(`${api}/${account.collection}/me`, { headers: auth() })
      if (!me?.user) session = await login()
    },
    order: (list) => destructiveLast(list, /^logout/, /^(login|resetPassword|unlock|forgotPassword)/),
    known: cmsKnownFailures(doc, (slug, id) => existing.get(slug)?.has(String(id)) ?? false),
    quirks: cmsKnownQuirks,
  }
}
