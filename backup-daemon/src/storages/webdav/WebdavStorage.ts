/**
 * @module storages/webdav/WebdavStorage
 * The `webdav` storage: a folder on a WebDAV server (Nextcloud, ownCloud, Apache mod_dav, nginx,
 * rclone serve webdav, ...). Two-phase writes like the other storages: `write` streams a PUT into
 * `<dir>/.<random>.incomplete` (folders made first with MKCOL: servers refuse a PUT into a missing
 * folder), `commit` is a MOVE to the key with `Overwrite: F` (so it never replaces a snapshot).
 * Listings walk the folders with PROPFIND `Depth: 1` (many servers refuse `Depth: infinity`).
 * The XML parser is imported with the first PROPFIND, so a daemon without a WebDAV storage never loads
 * `fast-xml-parser` (start-up time, README "Start-up time").
 */
import { randomBytes } from 'node:crypto'
import { Transform, type Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { checkKey } from '../remote/checkKey.js'
import { isNetworkError } from '../remote/isNetworkError.js'
import { cleanupBoundMs, settleWithin } from '../remote/settleWithin.js'
import { UpstreamStatusError } from '../remote/UpstreamStatusError.js'
import type { PendingObject, Storage, StoredObject } from '../types.js'
import { davRequest, drain, type DavCredentials, type DavRequest } from './davRequest.js'
import type { DavEntry } from './parseMultistatus.js'

const incompleteSuffix = '.incomplete'

export interface WebdavStorageOptions extends DavCredentials {
  name: string
  /** The server's URL (may hold a path, e.g. Nextcloud's `/remote.php/dav/files/<user>/`). */
  url: string
  /** Folder below `url`. */
  path: string
  /** Longest a request may go without a byte either way, in ms (the storage's `timeout`). @default 60000 */
  timeoutMs?: number
}

export class WebdavNotFoundError extends Error {
  constructor(key: string) {
    super(`no such object on the WebDAV server: ${key}`)
    this.name = 'WebdavNotFoundError'
  }
}

const propfindBody =
  '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/><D:getlastmodified/></D:prop></D:propfind>'

export class WebdavStorage implements Storage {
  readonly type = 'webdav'
  readonly canStream = true
  readonly name: string
  /** Base URL of the storage's folder, ending in `/`. */
  private readonly base: URL
  /** Its decoded path, ending in `/`: listings' hrefs are compared to it. */
  private readonly basePath: string
  /** Set once the server refused an absolute URL in a MOVE's `Destination` (see `move`). */
  private pathOnlyDestination = false
  /** The server's URL, ending in `/`. */
  private readonly serverUrl: URL
  /** Folders from the server's URL down to the storage's folder (relative, encoded), made by every write. */
  private readonly baseFolders: string[]

  constructor(private readonly options: WebdavStorageOptions) {
    this.name = options.name
    const server = new URL(options.url)
    if (server.username || server.password) throw new Error('put the WebDAV credentials in username and password, not in the url')
    const serverPath = server.pathname.endsWith('/') ? server.pathname : `${server.pathname}/`
    const segments = options.path.split('/').filter((s) => s && s !== '.')
    if (segments.includes('..')) throw new Error('the WebDAV path must not contain ".."')
    this.base = new URL(serverPath + segments.map((s) => `${encodeURIComponent(s)}/`).join(''), server)
    this.basePath = decodeURIComponent(this.base.pathname)
    this.baseFolders = segments.map((_, i) =>
      segments
        .slice(0, i + 1)
        .map(encodeURIComponent)
        .join('/'),
    )
    this.serverUrl = new URL(serverPath, server)
  }

  private urlOf(key: string, folder = false): string {
    const encoded = key ? key.split('/').map(encodeURIComponent).join('/') : ''
    return new URL(encoded + (folder && encoded ? '/' : ''), this.base).href
  }

  private request(init: Omit<DavRequest, 'url'> & { url: string }) {
    return davRequest(this.options, { idleTimeoutMs: this.options.timeoutMs, ...init })
  }

  /** MKCOL of every folder from the server's URL down to `dir` (a key folder; '' = the storage's folder). */
  private async makeFolders(dir: string): Promise<void> {
    const urls = [
      ...this.baseFolders.map((f) => new URL(`${f}/`, this.serverUrl).href),
      ...(dir ? dir.split('/').map((_, i, parts) => this.urlOf(parts.slice(0, i + 1).join('/'), true)) : []),
    ]
    for (const url of urls) {
      // 201 made; 405 already there (RFC 4918); some servers answer 201 or 301 for an existing one too.
      await drain(await this.request({ method: 'MKCOL', url, accept: [301, 405] }))
    }
  }

  async write(dir: string, body: Readable, signal: AbortSignal): Promise<PendingObject> {
    checkKey(dir)
    const temp = `${dir}/.${randomBytes(8).toString('hex')}${incompleteSuffix}`
    await this.makeFolders(dir)
    let size = 0
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length
        callback(null, chunk)
      },
    })
    // On abort or a failing source the request is ended cleanly rather than torn down: the server
    // then finishes the PUT and answers, and the DELETE that follows finds (and removes) the file.
    // A torn connection leaves the server writing a partial file at a time of its choosing. A server
    // that stopped answering never answers: the PUT is torn down after the clean-up bound.
    const put = new AbortController()
    const cleanupMs = cleanupBoundMs(this.options.timeoutMs ?? 60_000)
    let stopped: { reason: unknown; until: number } | undefined
    let tearDown: NodeJS.Timeout | undefined
    const stop = (reason: unknown) => {
      if (stopped) return
      stopped = { reason, until: Date.now() + cleanupMs }
      body.unpipe(counted)
      body.destroy()
      counted.end()
      tearDown = setTimeout(() => put.abort(reason), cleanupMs)
    }
    const onAbort = () => stop(signal.reason)
    body.once('error', stop)
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      signal.throwIfAborted()
      const response = await this.request({
        method: 'PUT',
        url: this.urlOf(temp),
        headers: { 'Content-Type': 'application/octet-stream', 'Transfer-Encoding': 'chunked' },
        body: body.pipe(counted),
        signal: put.signal,
      })
      await drain(response)
      if (stopped) throw stopped.reason
    } catch (err) {
      // Within the clean-up bound, counted from the stop for a cancel (the cancel bound, README).
      if (stopped) await settleWithin(this.remove(temp), stopped.until - Date.now())
      else await settleWithin(this.removeCutUpload(temp), cleanupMs)
      throw stopped ? stopped.reason : err
    } finally {
      clearTimeout(tearDown)
      signal.removeEventListener('abort', onAbort)
      body.off('error', stop)
    }
    let committed: string | undefined
    return {
      size,
      commit: async (key) => {
        if (committed === key) return
        checkKey(key)
        const slash = key.lastIndexOf('/')
        await this.makeFolders(slash === -1 ? '' : key.slice(0, slash))
        const response = await this.move(temp, key)
        if (response.statusCode === 404) {
          // A retry after a MOVE whose answer was lost: the temporary file is gone, the target is there.
          const target = await this.stat(key)
          if (target?.size !== size) throw new UpstreamStatusError(404, `WebDAV: the temporary upload for ${key} vanished before its MOVE`)
        }
        committed = key
      },
      discard: async () => {
        if (committed === undefined) await this.remove(temp)
      },
    }
  }

  /**
   * Removes what a PUT cut by the network left. The server may still be finishing the request it
   * saw cut (rclone stores the partial file when its handler returns, possibly after our DELETE), so
   * the file is looked for again a few times over about 3 s and deleted again when it reappeared.
   * Whatever is still left is an `.incomplete` file the engine's leftover sweep removes.
   */
  private async removeCutUpload(temp: string): Promise<void> {
    await this.remove(temp)
    for (const ms of [100, 200, 400, 800, 1600]) {
      await sleep(ms)
      if (await this.stat(temp)) await this.remove(temp)
    }
  }

  /**
   * MOVE `from` to `to` without replacing anything. RFC 4918 wants an absolute URL in `Destination`,
   * but a server behind a reverse proxy sees another host than ours, and Go's x/net/webdav (rclone)
   * then answers 502 ("destination on another server"): after a 502 the absolute path alone is sent,
   * which those servers accept, and this storage keeps using it.
   */
  private async move(from: string, to: string) {
    const send = async () => {
      const destination = this.pathOnlyDestination ? new URL(this.urlOf(to)).pathname : this.urlOf(to)
      return this.request({ method: 'MOVE', url: this.urlOf(from), headers: { Destination: destination, Overwrite: 'F' }, accept: [404] })
    }
    try {
      const response = await send()
      await drain(response)
      return response
    } catch (err) {
      if (this.pathOnlyDestination || !(err instanceof UpstreamStatusError && err.status === 502)) throw err
      this.pathOnlyDestination = true
      const response = await send()
      await drain(response)
      return response
    }
  }

  private async remove(key: string): Promise<void> {
    await drain(await this.request({ method: 'DELETE', url: this.urlOf(key), accept: [404] }))
  }

  /** PROPFIND of one folder (Depth: 1) or one file (Depth: 0); undefined when missing. */
  private async propfind(url: string, depth: '0' | '1'): Promise<DavEntry[] | undefined> {
    const response = await this.request({
      method: 'PROPFIND',
      url,
      headers: { Depth: depth, 'Content-Type': 'application/xml; charset=utf-8' },
      body: propfindBody,
      accept: [404],
    })
    const text = Buffer.concat(await response.toArray()).toString('utf8')
    if (response.statusCode === 404) return undefined
    const { parseMultistatus } = await import('./parseMultistatus.js')
    return parseMultistatus(text, url)
  }

  private async stat(key: string): Promise<DavEntry | undefined> {
    return (await this.propfind(this.urlOf(key), '0'))?.[0]
  }

  /** The key of an entry, or undefined when it is the folder itself or outside the storage. */
  private keyOf(entry: DavEntry): string | undefined {
    const path = entry.path.replace(/\/+$/, '')
    if (!path.startsWith(this.basePath)) return undefined
    return path.slice(this.basePath.length) || undefined
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const slash = prefix.lastIndexOf('/')
    const start = slash === -1 ? '' : prefix.slice(0, slash)
    if (start) checkKey(start)
    const found: StoredObject[] = []
    const walk = async (dir: string): Promise<void> => {
      for (const entry of (await this.propfind(this.urlOf(dir, true), '1')) ?? []) {
        const key = this.keyOf(entry)
        if (key === undefined || key === dir) continue
        if (entry.collection) {
          if (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`)) await walk(key)
        } else if (key.startsWith(prefix)) {
          found.push({ key, size: entry.size, modified: entry.modified, incomplete: key.endsWith(incompleteSuffix) })
        }
      }
    }
    await walk(start)
    return found
  }

  async open(key: string): Promise<Readable> {
    const response = await this.request({ method: 'GET', url: this.urlOf(checkKey(key)), accept: [404] })
    if (response.statusCode === 404) {
      await drain(response)
      throw new WebdavNotFoundError(key)
    }
    return response
  }

  async delete(key: string): Promise<void> {
    await this.remove(checkKey(key))
    // Remove the folders this deletion emptied (a split set's), never the storage's folder.
    const parts = key.split('/')
    for (let depth = parts.length - 1; depth > 0; depth--) {
      const dir = parts.slice(0, depth).join('/')
      const entries = (await this.propfind(this.urlOf(dir, true), '1')) ?? []
      if (entries.some((e) => this.keyOf(e) !== dir)) break
      await drain(await this.request({ method: 'DELETE', url: this.urlOf(dir, true), accept: [404] }))
    }
  }

  isNotExist(err: unknown): boolean {
    return err instanceof WebdavNotFoundError || (err instanceof UpstreamStatusError && err.status === 404)
  }

  isRetryable(err: unknown): boolean {
    return (err instanceof UpstreamStatusError && err.transient) || isNetworkError(err)
  }
}
