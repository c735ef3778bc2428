/**
 * @module sources/s3/S3Source
 * The `s3` source: every object under `path` in a bucket, mirrored into a local folder by parallel
 * downloads and archived as `<name>/<key relative to path>` (see `support/mirroredBatches`). The AWS
 * SDK is loaded on first use, so jobs without it do not pay for it.
 */
import { escapeName } from '../../logs/escapeControl.js'
import type { S3Client } from '@aws-sdk/client-s3'
import { Readable } from 'node:stream'
import type { RemoteObject } from '../support/mirrorRemote.js'
import { mirroredBatches, mirroredTree, type MirroredSourceSpec } from '../support/mirroredBatches.js'
import type { Source, SourceContext, SourceEntry, SourceTree } from '../types.js'
import type { S3SourceConfig } from './schema.js'

/** The key prefix of `path`: no leading slash, one trailing slash (empty for the whole bucket). */
export function s3Prefix(path: string): string {
  const trimmed = path.replace(/^\/+/, '').replace(/\/+$/, '')
  return trimmed ? `${trimmed}/` : ''
}

/** An SDK error as a message: its code and text, never the request's credentials. */
function describeError(err: unknown): string {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } }
  const status = e.$metadata?.httpStatusCode ? ` (HTTP ${e.$metadata.httpStatusCode})` : ''
  return `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message ?? String(err)}${status}`
}

export class S3Source implements Source {
  readonly type = 's3'
  readonly name: string
  private client?: Promise<{ client: S3Client; sdk: typeof import('@aws-sdk/client-s3') }>

  constructor(
    private readonly config: S3SourceConfig,
    private readonly context: SourceContext,
  ) {
    this.name = config.name
  }

  private connect() {
    this.client ??= import('@aws-sdk/client-s3').then((sdk) => {
      const c = this.config
      const client = new sdk.S3Client({
        region: c.region,
        endpoint: c.endpoint,
        forcePathStyle: c.endpoint !== undefined || c.usePathStyle,
        credentials: c.accessKeyId && c.secretAccessKey ? { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey } : undefined,
        // Many S3-compatible services reject the SDK's newer default checksums.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      })
      return { client, sdk }
    })
    return this.client
  }

  batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    return mirroredBatches(this.mirror(), signal)
  }

  /** With `syncPath`: the mirror folder, synced (a restic repository backs it up as a path). */
  tree(signal: AbortSignal): Promise<SourceTree | undefined> {
    return mirroredTree(this.mirror(), signal)
  }

  private mirror(): MirroredSourceSpec {
    const prefix = s3Prefix(this.config.path)
    const what = `bucket "${this.config.bucket}"${prefix ? `, prefix "${prefix}"` : ''}`
    return {
      name: this.name,
      type: this.type,
      context: this.context,
      what,
      syncPath: this.config.syncPath,
      excludes: this.config.excludes,
      workers: this.config.extraParams.workers,
      list: (s) => this.list(prefix, what, s),
      download: (object, s) => this.download(prefix, object, s),
    }
  }

  private async *list(prefix: string, what: string, signal: AbortSignal): AsyncIterable<RemoteObject> {
    const { client, sdk } = await this.connect()
    let token: string | undefined
    do {
      let page
      try {
        page = await client.send(new sdk.ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: prefix || undefined, ContinuationToken: token }), {
          abortSignal: signal,
        })
      } catch (err) {
        if (signal.aborted) throw signal.reason
        throw new Error(`source "${this.name}": listing ${what} failed: ${describeError(err)}`, { cause: err })
      }
      for (const object of page.Contents ?? []) {
        // Keys ending in "/" are folder markers made by consoles, not files.
        if (!object.Key || object.Key.endsWith('/')) continue
        yield { path: object.Key.slice(prefix.length), size: object.Size ?? 0, mtime: object.LastModified ?? new Date(0) }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
  }

  private async download(prefix: string, object: RemoteObject, signal: AbortSignal): Promise<Readable> {
    const { client, sdk } = await this.connect()
    try {
      const answer = await client.send(new sdk.GetObjectCommand({ Bucket: this.config.bucket, Key: prefix + object.path }), { abortSignal: signal })
      const body = answer.Body
      if (!body) throw new Error('empty answer')
      // In Node the SDK answers with an IncomingMessage (a Readable).
      if (!(body instanceof Readable)) throw new Error('the SDK returned a body that is not a Node stream')
      return body
    } catch (err) {
      if (signal.aborted) throw signal.reason
      throw new Error(`source "${this.name}": downloading "${escapeName(prefix + object.path)}" failed: ${describeError(err)}`, { cause: err })
    }
  }
}
