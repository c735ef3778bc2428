/**
 * @module storages/host/HostStorage
 * The `host` storage: a storage zone of the storage host, over its HTTP API.
 *
 * Two-phase writes without a rename: the API has no move or copy, so a temporary remote object could
 * only be "committed" by downloading and re-uploading it. Instead `write` spools the bytes to a local
 * temporary file while hashing them, and `commit(key)` uploads that file straight to its final key
 * with `Content-Length` and the `Checksum` header (SHA-256), so the host verifies every byte and
 * refuses a torn upload. Nothing half-written is ever stored remotely. While a write is in flight, an
 * empty placeholder `<dir>/.<id>.incomplete` marks it in listings like every other backend's temp
 * object (so the engine's leftover sweep sees and removes what a crashed run left); commit and discard
 * delete it. The price: local disk for one part, and the upload of a part starts when the engine
 * commits (after the archive is complete), not while it is produced.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { checkKey } from '../remote/checkKey.js'
import { isHostRetryable } from './isHostRetryable.js'
import { retry } from '../remote/retry.js'
import { UpstreamStatusError } from '../remote/UpstreamStatusError.js'
import type { PendingObject, Storage, StoredObject } from '../types.js'
import { HostApi, type HostApiOptions } from './hostApi.js'
import { signPullZoneUrl } from './signPullZoneUrl.js'

export interface HostStorageOptions extends HostApiOptions {
  name: string
  /** Base URL (or host name) of the pull zone in front of the storage zone. */
  pullZoneHostname?: string
  pullZoneTokenAuthKey?: string
  /** @default 3600 */
  pullZoneTokenTTL?: number
  /** Folder inside the zone holding everything this storage writes (the original's `path`). @default "" */
  path?: string
  /** Folder for spool files. @default the OS temp folder */
  spoolDir?: string
}

export class HostNotFoundError extends Error {
  readonly code = 'ENOENT'
  constructor(key: string) {
    super(`no such object in the storage zone: ${key}`)
    this.name = 'HostNotFoundError'
  }
}

export class HostStorage implements Storage {
  readonly type = 'host'
  readonly canStream = true
  readonly name: string
  private readonly api: HostApi
  /** `path` without leading or trailing slashes; "" for the zone's root. */
  private readonly base: string

  constructor(private readonly options: HostStorageOptions) {
    this.name = options.name
    this.api = new HostApi(options)
    this.base = (options.path ?? '')
      .split('/')
      .filter((s) => s && s !== '.')
      .join('/')
    if (this.base) checkKey(this.base)
  }

  /** The zone's object name of a storage key (keys are relative to `path`). */
  private inZone(key: string): string {
    return this.base ? `${this.base}/${checkKey(key)}` : checkKey(key)
  }

  async write(dir: string, body: Readable, signal: AbortSignal): Promise<PendingObject> {
    const id = randomBytes(8).toString('hex')
    const placeholder = `${this.inZone(dir)}/.${id}.incomplete`
    // `write` itself is not retried by the decorator (its body is a one-shot stream): retry this call here.
    await retry((attempt) => this.api.put(placeholder, Readable.from([]), { 'Content-Length': '0' }, { signal: attempt }), {
      signal,
      isRetryable: (err) => this.isRetryable(err),
    })
    const dropPlaceholder = () => this.api.request('DELETE', placeholder, { allow404: true }).then(() => undefined)
    const folder = await mkdtemp(join(this.options.spoolDir ?? tmpdir(), 'backup-daemon-host-')).catch(async (err: unknown) => {
      await dropPlaceholder().catch(() => {})
      throw err
    })
    const file = join(folder, `${id}.spool`)
    const hash = createHash('sha256')
    let size = 0
    const hasher = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk)
        size += chunk.length
        callback(null, chunk)
      },
    })
    try {
      await pipeline(body, hasher, createWriteStream(file), { signal })
    } catch (err) {
      await rm(folder, { recursive: true, force: true })
      await dropPlaceholder().catch(() => {})
      throw err
    }
    const checksum = hash.digest('hex').toUpperCase()
    let committed: string | undefined
    return {
      size,
      commit: async (key) => {
        if (committed !== key) {
          await this.api.put(
            this.inZone(key),
            createReadStream(file),
            { 'Content-Length': String(size), 'Content-Type': 'application/octet-stream', Checksum: checksum },
            // An upload may take long; the limit grows with the size (at least 1 MiB/s).
            { timeoutMs: 60_000 + Math.ceil(size / 1048576) * 1000 },
          )
          committed = key
          await rm(folder, { recursive: true, force: true })
        }
        await dropPlaceholder()
      },
      discard: async () => {
        await rm(folder, { recursive: true, force: true })
        await dropPlaceholder()
      },
    }
  }

  async list(relativePrefix: string): Promise<StoredObject[]> {
    const prefix = this.base ? `${this.base}/${relativePrefix}` : relativePrefix
    const slash = prefix.lastIndexOf('/')
    const start = slash === -1 ? '' : prefix.slice(0, slash)
    if (start) checkKey(start)
    const found: StoredObject[] = []
    const strip = this.base ? this.base.length + 1 : 0
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await this.api.listDirectory(dir)) {
        const key = dir ? `${dir}/${entry.ObjectName}` : entry.ObjectName
        if (entry.IsDirectory) {
          if (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`)) await walk(key)
        } else if (key.startsWith(prefix)) {
          const modified = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(entry.LastChanged) ? entry.LastChanged : `${entry.LastChanged}Z`)
          found.push({ key: key.slice(strip), size: entry.Length, modified, incomplete: entry.ObjectName.endsWith('.incomplete') })
        }
      }
    }
    await walk(start)
    return found
  }

  async open(key: string): Promise<Readable> {
    const response = await this.api.request('GET', this.inZone(key), { allow404: true })
    if (response.status === 404 || !response.body) {
      await response.body?.cancel()
      throw new HostNotFoundError(key)
    }
    return Readable.fromWeb(response.body as import('node:stream/web').ReadableStream)
  }

  async delete(key: string): Promise<void> {
    await this.api.request('DELETE', this.inZone(key), { allow404: true })
    // Folders are real objects on the host: remove the ones this deletion emptied (a split set's), never `path` itself.
    const parts = this.inZone(key).split('/')
    const keep = this.base ? this.base.split('/').length : 0
    for (let depth = parts.length - 1; depth > keep; depth--) {
      const dir = parts.slice(0, depth).join('/')
      if ((await this.api.listDirectory(dir)).length > 0) break
      await this.api.request('DELETE', `${dir}/`, { allow404: true })
    }
  }

  async downloadUrl(key: string): Promise<string | undefined> {
    const { pullZoneHostname, pullZoneTokenAuthKey } = this.options
    if (!pullZoneHostname || !pullZoneTokenAuthKey) return undefined
    const base = /^https?:\/\//.test(pullZoneHostname) ? pullZoneHostname.replace(/\/+$/, '') : `https://${pullZoneHostname}`
    const url = `${base}/${this.inZone(key).split('/').map(encodeURIComponent).join('/')}`
    return signPullZoneUrl(url, pullZoneTokenAuthKey, this.options.pullZoneTokenTTL ?? 3600)
  }

  isNotExist(err: unknown): boolean {
    return err instanceof HostNotFoundError || (err instanceof UpstreamStatusError && err.status === 404)
  }

  isRetryable(err: unknown): boolean {
    return isHostRetryable(err)
  }
}
