/**
 * @module sources/host/HostSource
 * The `host` source: every file under `path` in a storage zone, found by walking the Storage API's
 * JSON directory listings (`GET {endpoint}/{zone}/{dir}/` with the `AccessKey` header, folders
 * listed `workers` at a time), mirrored into a local folder by parallel downloads and archived as
 * `<name>/<path relative to the source's path>` (see `support/mirroredBatches`). Downloads use the
 * Storage API, or token-signed pull-zone URLs when `pullZoneHostname` and its key are set. Requests
 * are retried while the error is transient (5xx, 429, resets), as the storage does.
 */
import { escapeName } from '../../logs/escapeControl.js'
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { HostApi } from '../../storages/host/hostApi.js'
import { signPullZoneUrl } from '../../storages/host/signPullZoneUrl.js'
import { isHostRetryable } from '../../storages/host/isHostRetryable.js'
import { retry } from '../../storages/remote/retry.js'
import { UpstreamStatusError } from '../../storages/remote/UpstreamStatusError.js'
import type { RemoteObject } from '../support/mirrorRemote.js'
import { mirroredBatches, mirroredTree, type MirroredSourceSpec } from '../support/mirroredBatches.js'
import type { Source, SourceContext, SourceEntry, SourceTree } from '../types.js'
import type { HostSourceConfig } from './schema.js'

/** The API's `LastChanged` is UTC without a zone suffix (`2024-05-01T10:00:00.123`). */
export function parseHostDate(value: string | undefined): Date {
  if (!value) return new Date(0)
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`)
  return Number.isNaN(date.getTime()) ? new Date(0) : date
}

interface ListItem {
  ObjectName: string
  IsDirectory: boolean
  Length: number
  LastChanged?: string
}

export class HostSource implements Source {
  readonly type = 'host'
  readonly name: string
  private readonly api: HostApi
  private readonly root: string

  constructor(
    private readonly config: HostSourceConfig,
    private readonly context: SourceContext,
  ) {
    this.name = config.name
    this.api = new HostApi({ endpoint: config.endpoint, zoneName: config.zoneName, accessKey: config.accessKey })
    this.root = config.path.replace(/^\/+/, '').replace(/\/+$/, '')
  }

  batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    return mirroredBatches(this.mirror(), signal)
  }

  /** With `syncPath`: the mirror folder, synced (a restic repository backs it up as a path). */
  tree(signal: AbortSignal): Promise<SourceTree | undefined> {
    return mirroredTree(this.mirror(), signal)
  }

  private mirror(): MirroredSourceSpec {
    return {
      name: this.name,
      type: this.type,
      context: this.context,
      what: `zone "${this.config.zoneName}"${this.root ? `, folder "${this.root}/"` : ''}`,
      syncPath: this.config.syncPath,
      excludes: this.config.excludes,
      workers: this.config.extraParams.workers,
      list: (s) => this.list(s),
      download: (object, s) => this.download(object, s),
    }
  }

  private zonePath(relative: string): string {
    return this.root ? (relative ? `${this.root}/${relative}` : this.root) : relative
  }

  private async listFolder(relative: string, signal: AbortSignal): Promise<ListItem[]> {
    const dir = this.zonePath(relative)
    try {
      const response = await retry((s) => this.api.request('GET', dir ? `${dir}/` : '', { signal: s, allow404: true }), {
        signal,
        isRetryable: isHostRetryable,
      })
      if (response.status === 404) return []
      const body = (await response.json()) as unknown
      if (!Array.isArray(body)) throw new Error('the answer is not a JSON array')
      return body as ListItem[]
    } catch (err) {
      if (signal.aborted) throw signal.reason
      throw new Error(`source "${this.name}": listing "${dir}/" of zone "${this.config.zoneName}" failed: ${(err as Error).message}`, { cause: err })
    }
  }

  /** Breadth first, `workers` folders at a time; files in listing order. */
  private async *list(signal: AbortSignal): AsyncIterable<RemoteObject> {
    let level = ['']
    while (level.length > 0) {
      const next: string[] = []
      for (let i = 0; i < level.length; i += this.config.extraParams.workers) {
        const batch = level.slice(i, i + this.config.extraParams.workers)
        const listings = await Promise.all(batch.map((dir) => this.listFolder(dir, signal)))
        for (const [index, items] of listings.entries()) {
          const parent = batch[index]!
          for (const item of items) {
            const path = parent ? `${parent}/${item.ObjectName}` : item.ObjectName
            if (item.IsDirectory) next.push(path)
            else yield { path, size: item.Length, mtime: parseHostDate(item.LastChanged) }
          }
        }
      }
      level = next
    }
  }

  private async download(object: RemoteObject, signal: AbortSignal): Promise<Readable> {
    const path = this.zonePath(object.path)
    try {
      const response = await retry((s) => this.get(path, s), { signal, isRetryable: isHostRetryable })
      if (!response.body) throw new Error('empty answer')
      return Readable.fromWeb(response.body as WebReadableStream)
    } catch (err) {
      if (signal.aborted) throw signal.reason
      throw new Error(`source "${this.name}": downloading "${escapeName(path)}" failed: ${(err as Error).message}`, { cause: err })
    }
  }

  private async get(path: string, signal: AbortSignal): Promise<Response> {
    const { pullZoneHostname, pullZoneTokenAuthKey, pullZoneTokenTTL } = this.config
    if (!pullZoneHostname || !pullZoneTokenAuthKey) return this.api.request('GET', path, { signal })
    const base = /^https?:\/\//.test(pullZoneHostname) ? pullZoneHostname.replace(/\/+$/, '') : `https://${pullZoneHostname}`
    const url = signPullZoneUrl(`${base}/${path.split('/').map(encodeURIComponent).join('/')}`, pullZoneTokenAuthKey, pullZoneTokenTTL)
    // The attempt's signal (with its time limit) covers the wait for headers only; the body then
    // streams for as long as it takes and is stopped by the mirror's own signal.
    const headers = new AbortController()
    const onAbort = () => headers.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    let response: Response
    try {
      response = await fetch(url, { signal: headers.signal })
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {})
      // The URL carries a token: name the path only.
      throw new UpstreamStatusError(response.status, `pull zone answered ${response.status} to GET ${path}`)
    }
    return response
  }
}
