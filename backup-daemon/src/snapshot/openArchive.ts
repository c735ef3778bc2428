/**
 * @module snapshot/openArchive
 * The tar bytes of a snapshot: its parts read in order, decrypted when the manifest says `age`,
 * decompressed by the manifest's `compression`. The reverse of the run's pipeline, streamed.
 */
import { PassThrough, Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import type { AgeKeys } from '../archive/ageStream.js'
import { zstdStream } from '../archive/zstdStream.js'
import { concatObjects } from '../engine/snapshotCatalog.js'
import type { LocatedSnapshot } from './locateSnapshots.js'

export interface OpenArchiveOptions {
  /** Keys for an encrypted snapshot (the job's passphrase, or identities for recipients). */
  keys?: AgeKeys
  signal?: AbortSignal
}

export async function openArchive({ storage, manifest }: LocatedSnapshot, options: OpenArchiveOptions = {}): Promise<Readable> {
  let bytes: Readable = Readable.from(concatObjects(storage, manifest.parts.map((part) => part.key)))
  if (manifest.encryption === 'age') {
    const keys = options.keys ?? {}
    if (keys.passphrase === undefined && !keys.identities?.length) {
      bytes.destroy()
      throw new Error('the snapshot is age-encrypted: give the passphrase (the job\'s encryption.passphrase) or an identity file (--identity)')
    }
    bytes = await (await import('../archive/ageStream.js')).decryptAge(bytes, keys)
  }
  const stage = manifest.compression === 'tar.gz' ? createGunzip() : manifest.compression === 'tar.zst' ? zstdStream('decompress', { signal: options.signal }) : undefined
  if (!stage) return bytes
  const out = new PassThrough()
  pipeline(bytes, stage, out, options.signal ? { signal: options.signal } : {}).catch((err: Error) => out.destroy(err))
  return out
}
