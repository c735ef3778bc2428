/**
 * @module storages/s3/S3Storage
 * The `s3` storage: a bucket (and key prefix `path`) of any S3-compatible service.
 *
 * `write` streams the body as a multipart upload (`@aws-sdk/lib-storage`, parts of 8 MiB, two in
 * flight: memory stays near 16 MiB whatever the archive's length) under a temporary key
 * `<dir>/.<random>.incomplete`, so reading the sources and uploading overlap. `commit` is a
 * server-side copy to the final key followed by the deletion of the temporary one: S3 has no rename,
 * and a copy moves no byte through the daemon. A run that dies leaves only `.incomplete` keys (and
 * multipart uploads S3 aborts by lifecycle rule), which the engine's sweep deletes.
 */
import { randomBytes } from 'node:crypto'
import { Transform, type Readable } from 'node:stream'
import { AbortMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client, type StorageClass } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { checkKey } from '../remote/checkKey.js'
import { NoAnswerError } from '../remote/NoAnswerError.js'
import { cleanupBoundMs, settleWithin } from '../remote/settleWithin.js'
import type { PendingObject, Storage, StoredObject } from '../types.js'
import { copyObject } from './copyObject.js'
import { isS3NotExist } from './isS3NotExist.js'
import { isS3Retryable } from './isS3Retryable.js'

export interface S3StorageOptions {
  name: string
  bucket: string
  region: string
  endpoint?: string
  path: string
  accessKeyId?: string
  secretAccessKey?: string
  usePathStyle: boolean
  storageClass?: string
  downloadMode: 'proxy' | 'signed'
  signedUrlTTL: number
  /**
   * Longest a request may go without a byte either way, in ms (the storage's `timeout`); the SDK makes
   * 3 attempts of a request (a part, a listing page), so a server that stops answering fails one
   * within 3 times this. @default 60000
   */
  timeoutMs?: number
  /** Multipart part size in bytes. @default 8 MiB */
  partSize?: number
  /** Largest object copied in one request at commit. @default 5 GiB */
  singleCopyLimit?: number
}

const incompleteSuffix = '.incomplete'

export class S3Storage implements Storage {
  readonly type = 's3'
  readonly canStream = true
  readonly name: string
  readonly client: S3Client
  private readonly prefix: string
  /** The service's origin, as errors name it. */
  private readonly where: string

  constructor(private readonly options: S3StorageOptions) {
    this.name = options.name
    const trimmed = options.path.replace(/^\/+|\/+$/g, '')
    this.prefix = trimmed ? `${trimmed}/` : ''
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.usePathStyle,
      credentials: options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      // Many S3-compatible services reject the newer default CRC32 trailers of streamed bodies.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // `socketTimeout` is the inactivity limit. (`requestTimeout`, a whole request's time, only logs a
      // warning in this SDK unless `throwOnRequestTimeout`, and would cut a slow but moving part.)
      requestHandler: { socketTimeout: this.timeoutMs, connectionTimeout: Math.min(10_000, this.timeoutMs) },
    })
    const aws = options.usePathStyle ? `s3.${options.region}.amazonaws.com` : `${options.bucket}.s3.${options.region}.amazonaws.com`
    this.where = options.endpoint ? new URL(options.endpoint).origin : `https://${aws}`
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 60_000
  }

  /** The SDK's inactivity `TimeoutError` in the words every storage uses (`no answer from URL for N s`). */
  private described(err: unknown): unknown {
    const e = err as { name?: string; message?: string } | undefined
    if (e?.name === 'TimeoutError' && /timed out after \d+ ms of inactivity/.test(e.message ?? ''))
      return new NoAnswerError(this.where, this.timeoutMs, { cause: err })
    return err
  }

  /** `client.send` with the SDK's inactivity timeout described. */
  private async send<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (err) {
      throw this.described(err)
    }
  }

  private keyOf(key: string): string {
    return this.prefix + checkKey(key)
  }

  async write(dir: string, body: Readable, signal: AbortSignal): Promise<PendingObject> {
    const temp = `${checkKey(dir)}/.${randomBytes(8).toString('hex')}${incompleteSuffix}`
    let size = 0
    // Counted in a transform: a 'data' listener would switch `body` to flowing mode and defeat the
    // uploader's pull-based reading (whole parts piled up in memory).
    const counted = body.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length
          callback(null, chunk)
        },
      }),
    )
    body.once('error', (err) => counted.destroy(err))
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: this.keyOf(temp), Body: counted, StorageClass: this.options.storageClass as StorageClass | undefined },
      partSize: this.options.partSize ?? 8 * 1024 * 1024,
      queueSize: 2,
      // Aborted by `removeUpload` within the clean-up bound: lib-storage would wait for its abort
      // request (3 attempts of `timeout` on a server that stopped answering) before failing the upload.
      leavePartsOnError: true,
    })
    const onAbort = () => {
      body.destroy()
      counted.destroy()
      void upload.abort()
    }
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      signal.throwIfAborted()
      await upload.done()
      signal.throwIfAborted()
    } catch (err) {
      await this.removeUpload(upload, temp)
      throw signal.aborted ? signal.reason : this.described(err)
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
    let committed: string | undefined
    return {
      size,
      commit: async (key) => {
        if (committed === key) return
        await this.send(() =>
          copyObject({
            client: this.client,
            bucket: this.options.bucket,
            from: this.keyOf(temp),
            to: this.keyOf(key),
            size,
            storageClass: this.options.storageClass,
            singleCopyLimit: this.options.singleCopyLimit,
          }),
        )
        committed = key
        await this.delete(temp)
      },
      discard: () => this.delete(temp),
    }
  }

  /**
   * Best effort after a failed or cancelled upload, within the clean-up bound (a third of `timeout`,
   * 10 s at most: the cancel bound): the multipart upload is aborted, and the temporary key deleted (a
   * small body goes up as one PutObject that may have landed before the abort). What is left is
   * removed by the engine's leftover sweep, and by a bucket lifecycle rule for multipart uploads.
   */
  private async removeUpload(upload: Upload, temp: string): Promise<void> {
    const uploadId = upload.uploadId
    const abort = uploadId
      ? this.client.send(new AbortMultipartUploadCommand({ Bucket: this.options.bucket, Key: this.keyOf(temp), UploadId: uploadId }))
      : Promise.resolve()
    await settleWithin(Promise.allSettled([abort, this.delete(temp)]), cleanupBoundMs(this.timeoutMs))
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const found: StoredObject[] = []
    let token: string | undefined
    do {
      const page = await this.send(() =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: this.prefix + prefix, ContinuationToken: token })),
      )
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue
        const key = object.Key.slice(this.prefix.length)
        found.push({ key, size: object.Size ?? 0, modified: object.LastModified ?? new Date(0), incomplete: key.endsWith(incompleteSuffix) })
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
    return found
  }

  async open(key: string): Promise<Readable> {
    const result = await this.send(() => this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(key) })))
    return result.Body as Readable
  }

  async delete(key: string): Promise<void> {
    // S3 has no folders to clean up, and deleting a missing key succeeds.
    await this.send(() => this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(key) })))
  }

  async downloadUrl(key: string): Promise<string | undefined> {
    if (this.options.downloadMode !== 'signed') return undefined
    const filename = key.slice(key.lastIndexOf('/') + 1)
    const command = new GetObjectCommand({
      Bucket: this.options.bucket,
      Key: this.keyOf(key),
      ResponseContentDisposition: `attachment; filename="${filename.replace(/["\\]/g, '_')}"`,
    })
    return getSignedUrl(this.client, command, { expiresIn: this.options.signedUrlTTL })
  }

  isNotExist(err: unknown): boolean {
    return isS3NotExist(err)
  }

  isRetryable(err: unknown): boolean {
    return isS3Retryable(err)
  }
}
