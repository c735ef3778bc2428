/**
 * @module snapshot/verifySnapshot
 * Re-reads every part of a snapshot from its storage and checks it against the manifest: same keys in
 * the same order as the listing, and each part's size and sha256, then the whole archive's sha256.
 * Streams (memory does not grow with the parts' size).
 */
import { createHash } from 'node:crypto'
import type { LocatedSnapshot } from './locateSnapshots.js'

export interface VerifyResult {
  ok: boolean
  /** One line per problem, naming the part. */
  problems: string[]
  partsChecked: number
  bytes: number
}

export async function verifySnapshot({ storage, entry, manifest }: LocatedSnapshot, signal?: AbortSignal): Promise<VerifyResult> {
  const problems: string[] = []
  const listed = entry.dataKeys
  const declared = manifest.parts.map((part) => part.key)
  if (listed.length !== declared.length || listed.some((key, i) => key !== declared[i])) {
    problems.push(`parts listed in the storage (${listed.length}) do not match the manifest's (${declared.length})`)
  }
  const whole = createHash('sha256')
  let bytes = 0
  let partsChecked = 0
  for (const part of manifest.parts) {
    signal?.throwIfAborted()
    const hash = createHash('sha256')
    let size = 0
    try {
      for await (const chunk of await storage.open(part.key)) {
        hash.update(chunk as Buffer)
        whole.update(chunk as Buffer)
        size += (chunk as Buffer).length
      }
    } catch (err) {
      problems.push(`${part.key}: cannot be read: ${(err as Error).message}`)
      continue
    }
    partsChecked++
    bytes += size
    const sha256 = hash.digest('hex')
    if (size !== part.size) problems.push(`${part.key}: size ${size}, manifest says ${part.size}`)
    else if (sha256 !== part.sha256) problems.push(`${part.key}: sha256 ${sha256}, manifest says ${part.sha256}`)
  }
  if (problems.length === 0 && whole.digest('hex') !== manifest.sha256) problems.push(`whole archive: sha256 differs from the manifest's`)
  return { ok: problems.length === 0, problems, partsChecked, bytes }
}
