/**
 * @module cli/fileSources
 * Where `migrate` reads a collection's files from: `--from local`, the collection's `staticDir` (Payload's
 * local storage), or `--from s3`, the bucket another storage adapter kept them in (the official
 * `@payloadcms/storage-s3`: each file in the document's folder, `{prefix}/{_objectKey}/{filename}` as
 * plugin-cloud-storage 3.90 composes it, the same folder the plugin then reads). Either way a file is handed on as
 * a local path with its size and SHA-256, which the upload sends as its `Checksum`; an S3 object is first
 * copied to a temporary file, hashed as it arrives, and removed once it was sent.
 */
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, posix } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'

import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3'

import { sanitizePrefix } from '../keys/objectKeys.js'

/** A file ready to send: where to read it, its size and digest (upper-case hex, as the host lists it). */
export interface LocalCopy {
  path: string
  size: number
  digest: string
  /** Removes a temporary copy (nothing for a file that was already local). */
  release(): Promise<void>
}

/** What the source needs to find a document's file. */
export interface SourceFile {
  name: string
  /** The document's folder (`keys/objectKeys.ts` documentFolder: its stored `prefix` and `_objectKey`). */
  folder: string
}

export interface FileSource {
  /** Where the files are, as the progress lines name it. */
  label: string
  /** The file, or undefined when the source does not have it. */
  fetch(file: SourceFile): Promise<LocalCopy | undefined>
  close(): Promise<void>
}

const nothingToRelease = () => Promise.resolve()

/** A hash of everything that passes through. */
function hashing(hash: ReturnType<typeof createHash>): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk)
      done(null, chunk)
    },
  })
}

export function localSource(staticDir: string): FileSource {
  return {
    label: staticDir,
    async fetch({ name }) {
      const path = join(staticDir, name)
      const info = await stat(path).catch(() => undefined)
      if (!info?.isFile()) return undefined
      const hash = createHash('sha256')
      await pipeline(createReadStream(path), hash)
      return { digest: hash.digest('hex').toUpperCase(), path, release: nothingToRelease, size: info.size }
    },
    close: nothingToRelease,
  }
}

export interface S3SourceOptions {
  bucket: string
  /** An S3-compatible endpoint (MinIO, R2, …); AWS's own when not given. */
  endpoint?: string
  region?: string
  forcePathStyle?: boolean
}

/** Objects of a bucket; credentials come from the AWS SDK's usual places (`AWS_ACCESS_KEY_ID`, profiles, roles), never the command line. */
export async function s3Source(options: S3SourceOptions): Promise<FileSource> {
  const client = new S3Client({
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle ?? Boolean(options.endpoint),
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
  })
  const scratch = await mkdtemp(join(tmpdir(), 'storage-host-migrate-'))
  let copies = 0
  return {
    label: `S3 bucket "${options.bucket}"`,
    async fetch({ folder, name }) {
      const key = posix.join(sanitizePrefix(folder), name)
      let body: Readable
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: options.bucket, Key: key }))
        body = answer.Body as Readable
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
        if (status === 404 || (err as Error).name === 'NoSuchKey') return undefined
        throw new Error(`S3 GetObject of "${key}" failed: ${(err as Error).name}${status ? ` (HTTP ${status})` : ''}`, { cause: err })
      }
      const path = join(scratch, String(++copies))
      const hash = createHash('sha256')
      await pipeline(body, hashing(hash), createWriteStream(path, { mode: 0o600 }))
      const { size } = await stat(path)
      return { digest: hash.digest('hex').toUpperCase(), path, release: () => rm(path, { force: true }), size }
    },
    async close() {
      client.destroy()
      await rm(scratch, { force: true, recursive: true })
    },
  }
}
