/**
 * @module repository/archives/verifySnapshot
 * Checks a listed snapshot. With our manifest: re-reads every part from its storage and checks it
 * against the manifest (same keys in the same order as the listing, each part's size and sha256, then
 * the whole archive's sha256; no key needed). Without one (the original service's snapshots): the
 * split set must be complete (the listing says), and the archive must decrypt, decompress and read to
 * its last entry, which catches a truncated or corrupt archive and a wrong password. A snapshot listed
 * as damaged fails at once. Streams (memory does not grow with the parts' size); a cancel is checked
 * after every chunk, so it stops a large part at once, and is thrown (never reported as a damaged part).
 */
import { createHash } from 'node:crypto'
import type { LocatedSnapshot } from './readManifest.js'
import { describeReadError, openArchive, type OpenArchiveOptions } from './openArchive.js'
import { forEachTarEntry } from '../../tar/forEachTarEntry.js'
import type { VerifyResult } from '../types.js'

export async function verifySnapshot(located: LocatedSnapshot, signal?: AbortSignal, keys: Omit<OpenArchiveOptions, 'signal'> = {}): Promise<VerifyResult> {
  const { storage, entry, manifest } = located
  if (entry.view.damaged) return { ok: false, problems: [`damaged: ${entry.view.damageReason ?? 'incomplete'}`], partsChecked: 0, bytes: 0 }
  if (!manifest) return readThrough(located, signal, keys)
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
        signal?.throwIfAborted()
        hash.update(chunk as Buffer)
        whole.update(chunk as Buffer)
        size += (chunk as Buffer).length
      }
    } catch (err) {
      // Cancelled mid-part: the read error is the cancel, not a damaged part.
      signal?.throwIfAborted()
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
  const ok = problems.length === 0
  return { ok, problems, partsChecked, bytes, ...(ok && { sha256: manifest.sha256 }) }
}

/** Reads an unchecksummed snapshot's archive to its end. */
async function readThrough(located: LocatedSnapshot, signal: AbortSignal | undefined, keys: Omit<OpenArchiveOptions, 'signal'>): Promise<VerifyResult> {
  const { entry } = located
  const bytes = entry.dataSizes.reduce((sum, size) => sum + size, 0)
  let entries = 0
  try {
    const archive = await openArchive(located, { ...keys, ...(signal && { signal }) })
    await forEachTarEntry(archive, async (_header, stream) => {
      entries++
      for await (const _chunk of stream) signal?.throwIfAborted()
    })
  } catch (err) {
    if (signal?.aborted) throw err
    const problem = describeReadError(located, err as Error).message
    return { ok: false, problems: [`the archive does not read to its end: ${problem}`], partsChecked: entry.dataKeys.length, bytes, entries }
  }
  return { ok: true, problems: [], partsChecked: entry.dataKeys.length, bytes, entries }
}
