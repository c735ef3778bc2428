/**
 * @module validation/uniqueFilename
 * A file name no document of the collection uses yet: `name.ext`, then `name-1.ext`, `name-2.ext`...
 * (Payload's own numbering). Uses a `count` query: Payload's `getSafeFileName` loads whole documents
 * (with their array tables) for each probe, which doubled tus-auth's latency (see README, benchmarks).
 */
import type { PayloadRequest } from 'payload'

function increment(name: string): string {
  const dot = name.lastIndexOf('.')
  const base = dot > 0 ? name.slice(0, dot) : name
  const ext = dot > 0 ? name.slice(dot) : ''
  const match = /^(.*)-(\d+)$/.exec(base)
  return match ? `${match[1]}-${Number(match[2]) + 1}${ext}` : `${base}-1${ext}`
}

/** Answers `desired` or the first numbered variant that is free. */
export async function uniqueFilename(req: PayloadRequest, collection: string, desired: string): Promise<string> {
  let candidate = desired
  for (let i = 0; i < 1000; i++) {
    const { totalDocs } = await req.payload.db.count({ collection, req, where: { filename: { equals: candidate } } })
    if (totalDocs === 0) return candidate
    candidate = increment(candidate)
  }
  throw new Error('No free file name found')
}
