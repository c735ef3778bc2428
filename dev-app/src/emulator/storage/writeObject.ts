/**
 * @module emulator/storage/writeObject
 * Streams a request body to a temporary file, hashing it on the way, and renames it into place only
 * when the caller accepts the result: a reader never sees a half-written object, memory stays flat.
 */
import { randomUUID, createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { Transform } from 'node:stream'
import { crc32 as crc32Of } from 'node:zlib'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

export interface WrittenObject {
  size: number
  /** Uppercase hex SHA-256, the storage API's `Checksum` format. */
  sha256: string
  /** Lowercase hex MD5, the S3 ETag of a single-part PUT. */
  md5: string
  /** CRC32 of the body (S3's `x-amz-checksum-crc32` is its 4 big-endian bytes in base64). */
  crc32: number
}

export interface WriteObjectArgs {
  body: Readable
  tmpDir: string
  destination: string
  /** Called with the hashes before the rename; return false to discard the file. */
  accept?: (written: WrittenObject) => boolean
}

/** Resolves to the written object, or `undefined` when `accept` refused it (nothing is left behind). */
export async function writeObject({ body, tmpDir, destination, accept }: WriteObjectArgs): Promise<WrittenObject | undefined> {
  await mkdir(tmpDir, { recursive: true })
  const tmp = path.join(tmpDir, `${randomUUID()}.part`)
  const sha256 = createHash('sha256')
  const md5 = createHash('md5')
  let size = 0
  let crc32 = 0
  const hasher = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length
      sha256.update(chunk)
      md5.update(chunk)
      crc32 = crc32Of(chunk, crc32)
      callback(null, chunk)
    },
  })
  try {
    await pipeline(body, hasher, createWriteStream(tmp))
    const written = { size, sha256: sha256.digest('hex').toUpperCase(), md5: md5.digest('hex'), crc32 }
    if (accept && !accept(written)) {
      await rm(tmp, { force: true })
      return undefined
    }
    await mkdir(path.dirname(destination), { recursive: true })
    await rename(tmp, destination)
    return written
  } catch (error) {
    await rm(tmp, { force: true })
    throw error
  }
}
