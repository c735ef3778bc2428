/**
 * @module plugin-openapi/test/conformance/knownFailures
 * Failures of the CMS core (Payload 3.90 on SQLite) to bad input, which no description can fix: each is named,
 * with the reason and the upstream issue where one exists, and recognised by the request that causes it. The
 * description does not claim a status for them (a 500 is no contract); `plugin-openapi/README.md` lists them
 * under the known limitations.
 */
import type { DocumentedOperation, RequestCase } from './requestCases.js'
import type { KnownFailure } from './runConformance.js'
import { resolveRef, type Schema } from './schemaArbitrary.js'

const broke = (c: RequestCase, rule: RegExp) => c.kind === 'invalid' && rule.test(c.broken ?? '')

/** IDs a request body gives to relationship fields (`x-payload-relationTo`), with their target collections. */
export function relationValues(schema: Schema | undefined, value: unknown, doc: Schema, out: { slugs: string[]; id: unknown }[] = []): typeof out {
  const s = resolveRef(schema, doc)
  if (value === null || value === undefined) return out
  // The JSON part of a multipart body (`_payload`) follows its `contentSchema`.
  if (s.contentSchema) return relationValues(s.contentSchema, value, doc, out)
  const targets = s['x-payload-relationTo'] as string[] | undefined
  if (targets && !s.items) {
    if (typeof value === 'object' && !Array.isArray(value) && 'value' in (value as object)) {
      out.push({ slugs: [String((value as { relationTo?: unknown }).relationTo)], id: (value as { value: unknown }).value })
    } else if (typeof value !== 'object') out.push({ slugs: targets, id: value })
    return out
  }
  if (Array.isArray(value)) for (const v of value) relationValues(s.items, v, doc, out)
  else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (s.properties?.[k]) relationValues(s.properties[k], v, doc, out)
    }
  }
  return out
}

/** The conditions of a request's `where`: each one's field path and its key up to the operator (`where[and][0][title][equals]`). */
export function whereConditions(url: string): { path: string; key: string }[] {
  const query = new URLSearchParams(url.split('?')[1] ?? '')
  const out = new Map<string, string>()
  for (const key of query.keys()) {
    const segments = [...key.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)
    if (!key.startsWith('where[')) continue
    const at = segments.findIndex((seg) => seg !== 'and' && seg !== 'or' && !/^\d+$/.test(seg))
    if (at < 0 || at + 1 >= segments.length) continue
    out.set(`where[${segments.slice(0, at + 2).join('][')}]`, segments[at]!)
  }
  return [...out].map(([key, path]) => ({ key, path }))
}

/** Field paths of the blocks fields a document's `where` schemas name (each `<path>.blockType`, e.g. `content`, `version.content`). */
function blocksPaths(doc: Schema): string[] {
  const out = new Set<string>()
  for (const schema of Object.values<Schema>(doc.components?.schemas ?? {})) {
    for (const name of Object.keys(schema.properties ?? {})) if (name.endsWith('.blockType')) out.add(name.slice(0, -'.blockType'.length))
  }
  return [...out]
}

/** The CMS core's known 500s; `exists(slug, id)` says whether a document exists (from the suite's own listings). */
export function cmsKnownFailures(doc: Schema, exists: (slug: string, id: unknown) => boolean): KnownFailure[] {
  const bodySchema = (d: DocumentedOperation): Schema | undefined => {
    const content = (d.op.requestBody?.content ?? {}) as Record<string, Schema>
    return (content['application/json'] ?? content['multipart/form-data'])?.schema
  }
  const blocks = blocksPaths(doc)
  const inBlocks = (path: string) => blocks.find((b) => path.startsWith(`${b}.`) && path !== `${b}.blockType`)
  return [
    {
      name: 'non-numeric ID on SQLite',
      reason:
        'A path ID that is not a number reaches the SQL query of a collection with numeric IDs, which fails (500) instead of answering 404; the same on PostgreSQL (payloadcms/payload#8347).',
      matches: (c) => broke(c, /^path id: (type|integer)$/),
    },
    {
      name: '`where` that is not a `qs` object',
      reason:
        'Since payloadcms/payload#15745, `parseParams` reads a plain `where=...` value as JSON with `JSON.parse` and does not catch the SyntaxError, so `where=AAA` answers 500 instead of 400.',
      matches: (c) => broke(c, /^query where: type$/),
    },
    {
      name: '`limit` or `page` that is not a whole number',
      reason:
        '`parseParams` keeps `limit`/`page` values that are no number (or not whole, or negative) as they are, and the SQLite adapter fails on them ("Only finite numbers can be passed", 500).',
      matches: (c) => broke(c, /^query (limit|page): (type|integer|minimum)$/),
    },
    {
      name: 'a JSON body that is not an object',
      reason: 'A JSON string or array as the body of a write reaches the operation as its data and fails there (500) instead of a 400.',
      matches: (c) => broke(c, /^body type$/),
    },
    {
      name: 'a body field of the wrong JSON type',
      reason:
        'Payload checks some fields only as text (an `email` given the number 12345 reaches the database layer and fails there, 500), where a 400 ValidationError is due.',
      matches: (c) => broke(c, /^body [\w.]+: type$/),
    },
    {
      name: 'duplicating an upload whose file cannot be fetched',
      reason:
        "Duplicate fetches the document's file by its URL; when that fails (a video whose original the streaming host does not serve yet, a file gone from the storage) Payload answers FileRetrievalError with status 500.",
      matches: (c, _answer, d) => c.operationId.startsWith('duplicate') && `${d.path.replace(/\/\{id\}\/duplicate$/, '')}/file/{filename}` in doc.paths,
    },
    {
      name: 'two conditions on the fields of one blocks field',
      reason:
        'The SQL adapters join a block table once per condition under one alias: a second condition on a field of the same blocks field (`where[content.text][equals]=x&where[content.source][exists]=true`, or two operators on one such field) fails with "Alias posts_blocks_quote is already used in this query" (500); payloadcms/payload#8823 fixed the same error for nested and localized fields, not for blocks.',
      matches: (c) => {
        const fields = whereConditions(c.url)
          .map((w) => inBlocks(w.path))
          .filter(Boolean)
        return new Set(fields).size < fields.length
      },
    },
    {
      name: 'a polymorphic relationship inside blocks',
      reason:
        'A condition on a polymorphic relationship of a block (`where[content.items.link.value][equals]=1`) fails in `sanitizeQueryValue` of the SQL adapters ("Cannot read properties of undefined (reading \'map\')", 500); the same path outside blocks answers.',
      matches: (c) => whereConditions(c.url).some((w) => inBlocks(w.path) && /\.(value|relationTo)$/.test(w.path)),
    },
    {
      name: 'a relationship ID that does not exist',
      reason:
        'On SQLite a relationship or upload field set to an ID no document has fails the foreign key of the write (500); Payload validates the ID type, not that the document exists.',
      matches: (c, answer, d) =>
        answer.status === 500 &&
        c.values.body !== undefined &&
        relationValues(bodySchema(d), c.values.body, doc).some((r) => !r.slugs.some((slug) => exists(slug, r.id))),
    },
  ]
}

/**
 * Answers to invalid requests that echo the invalid value where the description promises a type: not a
 * description fault (a client following it never sends them), counted apart like the known failures.
 */
export const cmsKnownQuirks: KnownFailure[] = [
  {
    name: 'a select field stores a number it is sent',
    reason:
      'A select field (`_status` of drafts) given a number is saved as text (`"12345.0"`), not refused: later answers carry a value outside the options. Payload validates the option only for strings.',
    matches: (_c, answer, _d, problem) => {
      const at = /^data(\/\S*)? must be equal to one of the allowed values/.exec(problem?.detail ?? '')
      if (!at) return false
      let value: unknown = JSON.parse(new TextDecoder().decode(answer.bytes))
      for (const key of (at[1] ?? '').split('/').slice(1)) value = (value as Record<string, unknown> | undefined)?.[key]
      return typeof value === 'string' && /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value)
    },
  },
  {
    name: '`limit` or `page` echoed as sent',
    reason: 'A `limit` or `page` that is not a whole number (`1.5`, `AAA`) is returned as given in the page fields of a list answer (`"limit": "AAA"`).',
    matches: (c) => broke(c, /^query (limit|page): (type|integer|minimum)$/),
  },
]
