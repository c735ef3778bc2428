/**
 * @module storages/host/hostApi
 * The storage host's HTTP API, one request per call: `PUT|GET|DELETE {endpoint}/{zone}/{path}` with
 * the zone password in `AccessKey`, listings on a trailing slash. Every call has a time limit (for a
 * GET, until the response headers; the body then streams for as long as it takes). Non-2xx answers
 * become `UpstreamStatusError` whose message never holds the key.
 */
import type { Readable } from 'node:stream'
import { putStream } from '../remote/putStream.js'
import { UpstreamStatusError } from '../remote/UpstreamStatusError.js'

export interface HostApiOptions {
  endpoint: string
  zoneName: string
  accessKey: string
  /** Time limit of one call in ms. @default 60000 */
  timeoutMs?: number
}

/** One entry of a listing, with the API's field names. */
export interface HostListEntry {
  ObjectName: string
  Length: number
  IsDirectory: boolean
  LastChanged: string
}

export class HostApi {
  private readonly base: string
  private readonly timeoutMs: number

  constructor(private readonly options: HostApiOptions) {
    this.base = `${options.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(options.zoneName)}/`
    this.timeoutMs = options.timeoutMs ?? 60_000
  }

  urlOf(path: string): string {
    return this.base + path.split('/').map(encodeURIComponent).join('/')
  }

  /**
   * Uploads `body` with node:http rather than fetch: fetch's stream bodies read ahead of a slow
   * connection (a whole part ended up in memory), `pipeline` into the request keeps backpressure.
   */
  async put(path: string, body: Readable, headers: Record<string, string>, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    const url = new URL(this.urlOf(path))
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs)
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
    try {
      const { status, text } = await putStream(url, { AccessKey: this.options.accessKey, ...headers }, body, signal)
      if (status < 200 || status > 299) throw new UpstreamStatusError(status, `storage host answered ${status} to PUT ${path}: ${summary(text)}`)
    } catch (err) {
      if (timeout.aborted && !options.signal?.aborted) throw Object.assign(new Error(`storage host: PUT ${path} timed out`), { code: 'ETIMEDOUT' })
      throw err
    }
  }

  /** Sends one request without a body; resolves with the response once headers arrived (2xx only, or 404 when `allow404`). */
  async request(
    method: 'GET' | 'DELETE',
    path: string,
    init: { headers?: Record<string, string>; signal?: AbortSignal; allow404?: boolean; timeoutMs?: number } = {},
  ): Promise<Response> {
    const timeout = AbortSignal.timeout(init.timeoutMs ?? this.timeoutMs)
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout
    const headersSignal = new AbortController()
    const onAbort = () => headersSignal.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      const response = await fetch(this.urlOf(path), {
        method,
        headers: { AccessKey: this.options.accessKey, ...init.headers },
        signal: headersSignal.signal,
      })
      if (response.ok || (init.allow404 && response.status === 404)) {
        // Uploads keep the timeout to the end; downloads stream without one once they started.
        if (method === 'GET') signal.removeEventListener('abort', onAbort)
        return response
      }
      const text = await response.text().catch(() => '')
      throw new UpstreamStatusError(response.status, `storage host answered ${response.status} to ${method} ${path}: ${summary(text)}`)
    } catch (err) {
      if (timeout.aborted && !init.signal?.aborted) throw Object.assign(new Error(`storage host: ${method} ${path} timed out`), { code: 'ETIMEDOUT' })
      throw err
    } finally {
      if (method !== 'GET') signal.removeEventListener('abort', onAbort)
    }
  }

  /** One folder's entries (not recursive); a missing folder lists as empty. */
  async listDirectory(dir: string): Promise<HostListEntry[]> {
    const response = await this.request('GET', dir ? `${dir}/` : '', { allow404: true })
    if (response.status === 404) return []
    const body = (await response.json()) as unknown
    if (!Array.isArray(body)) throw new Error(`storage host: listing of "${dir}/" is not an array`)
    return body as HostListEntry[]
  }
}

/** The API's `{HttpCode, Message}` body, shortened; never echoes request headers. */
function summary(text: string): string {
  try {
    const parsed = JSON.parse(text) as { Message?: string }
    if (parsed.Message) return parsed.Message.slice(0, 200)
  } catch {
    // not JSON
  }
  return text.slice(0, 200) || '(no body)'
}
