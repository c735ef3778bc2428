/**
 * @module repository/archives/openArchive
 * The tar bytes of a snapshot: its parts read in order, decrypted (age, or OpenSSL's `enc -pbkdf2`
 * format), decompressed by the compression (the manifest's, or the name's for a snapshot without one),
 * and a zip re-packed as tar (`zipToTar`). The reverse of the run's pipeline, streamed.
 *
 * With a manifest, every part is checked as it is read (`checkedParts`: its size and sha256, then the
 * whole archive's): the stream fails instead of ending when a byte differs, so a reader that acts only
 * once the stream has ended (a restore unpacks into a temporary folder and moves it into place at the
 * end) needs no verify pass first, and reads the snapshot once (issue 42).
 *
 * OpenSSL's CTR mode has no integrity: with a wrong password the decrypted bytes are garbage that only
 * the archive reader notices. Errors of an openssl-encrypted snapshot's decompression or parsing are
 * therefore reported as "wrong password or not an openssl-encrypted file" (`describeReadError`).
 */
import { PassThrough, Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { wrongPasswordMessage } from '../../archive/opensslStream.js'
import { xzStream } from '../../archive/xzStream.js'
import { zstdStream } from '../../archive/zstdStream.js'
import { opensslCiphers, type OpensslCipher } from '../../config/opensslCiphers.js'
import type { SnapshotKeys } from '../types.js'
import { concatObjects } from './catalog.js'
import { checkedParts } from './checkedParts.js'
import type { LocatedSnapshot } from './readManifest.js'
import { zipToTar } from '../../archive/zipToTar.js'

export interface OpenArchiveOptions extends SnapshotKeys {
  signal?: AbortSignal
}

/** How the bytes of a located snapshot are encoded. */
export function formatOf({ entry, manifest }: LocatedSnapshot) {
  return { compression: manifest?.compression ?? entry.compression, encryption: manifest ? (manifest.encryption ?? undefined) : entry.encryption }
}

/**
 * A read error worded for the snapshot: a storage that failed under the read (a connection lost) is named, as
 * a run names it; an archive error of an openssl-encrypted snapshot, whose garbage may come from a wrong
 * password, says so.
 */
export function describeReadError(located: LocatedSnapshot, err: Error): Error {
  const { storage } = located
  if (storage.isRetryable(err)) return new Error(`storage "${storage.name}" (${storage.type}) failed: ${err.message}`, { cause: err })
  if (formatOf(located).encryption !== 'openssl' || err.message.startsWith(wrongPasswordMessage)) return err
  return new Error(`${wrongPasswordMessage}: the decrypted bytes are not a valid ${formatOf(located).compression} archive (${err.message})`, { cause: err })
}

export async function openArchive(located: LocatedSnapshot, options: OpenArchiveOptions = {}): Promise<Readable> {
  const { storage, entry, manifest } = located
  const { compression, encryption } = formatOf(located)
  let bytes: Readable = Readable.from(manifest ? checkedParts(storage, manifest) : concatObjects(storage, entry.dataKeys))
  if (encryption === 'age') {
    const ageKeys = options.keys ?? {}
    if (ageKeys.passphrase === undefined && !ageKeys.identities?.length) {
      bytes.destroy()
      throw new Error("the snapshot is age-encrypted: give the passphrase (the job's encryption.passphrase) or an identity file (--identity)")
    }
    bytes = await (await import('../../archive/ageStream.js')).decryptAge(bytes, ageKeys)
  } else if (encryption === 'openssl') {
    if (!options.openssl) {
      bytes.destroy()
      throw new Error('the snapshot is openssl-encrypted (.enc): the job needs encryption: { type: openssl, password, cipher }')
    }
    const recorded = manifest?.cipher
    const cipher =
      recorded && (opensslCiphers as readonly string[]).includes(recorded) ? (recorded as OpensslCipher) : (options.openssl.cipher ?? 'aes-256-cbc')
    const { decryptOpenssl } = await import('../../archive/opensslStream.js')
    const decrypt = decryptOpenssl(options.openssl.password, cipher)
    bytes.on('error', (err) => decrypt.destroy(err))
    bytes = bytes.pipe(decrypt)
  }
  const stage =
    compression === 'tar.gz'
      ? createGunzip()
      : compression === 'tar.zst'
        ? zstdStream('decompress', { signal: options.signal })
        : compression === 'tar.xz'
          ? xzStream('decompress', { signal: options.signal })
          : undefined
  let out: Readable = bytes
  if (stage) {
    const through = new PassThrough()
    pipeline(bytes, stage, through, options.signal ? { signal: options.signal } : {}).catch((err: Error) => through.destroy(err))
    out = through
  }
  if (compression === 'zip') out = zipToTar(out, options.signal)
  if (encryption !== 'openssl') return out
  // Reword what the readers of the tar stream see (they get this stream's error).
  const worded = new PassThrough()
  pipeline(out, worded).catch((err: Error) => worded.destroy(describeReadError(located, err)))
  return worded
}
