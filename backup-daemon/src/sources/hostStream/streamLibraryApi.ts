/**
 * @module sources/hostStream/streamLibraryApi
 * The calls of the streaming host's library API (`{apiBase}/library/{id}/...`, `AccessKey` header)
 * and pull zone (`{pullZone}/{guid}/{file}`, token-signed when a key is set) that the `host-stream`
 * source and `restoreVideos` make. JSON calls and download starts are retried while the error is
 * transient (5xx, 429, resets, timeouts), as the storages do; an upload is not (a video takes one
 * upload only). Errors never hold the key or a signed URL.
 */
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { isHostRetryable } from '../../storages/host/isHostRetryable.js'
import { signPullZoneUrl } from '../../storages/host/signPullZoneUrl.js'
import { retry } from '../../storages/remote/retry.js'
import { putStream } from '../../storages/remote/putStream.js'
import { UpstreamStatusError } from '../../storages/remote/UpstreamStatusError.js'

export interface StreamLibraryApiOptions {
  apiBase: string
  libraryId: number
  apiKey: string
  /** Base URL of the library's pull zone; needed for downloads only. */
  pullZoneUrl?: string
  pullZoneTokenAuthKey?: string
  pullZoneTokenTTL?: number
  /** Attempts after the first, for tests that fail fast. @default 4 */
  retries?: number
}

/** The fields of the API's video object this code reads (the API sends more). */
export interface StreamVideo {
  guid: string
  title: string
  description?: string | null
  dateUploaded: string
  status: number
  length: number
  width: number
  height: number
  storageSize: number
  availableResolutions: string | null
  hasMP4Fallback: boolean
  hasOriginal?: boolean
  collectionId: string
  thumbnailFileName: string | null
  captions: { srclang: string; label: string }[] | null
  chapters: { title: string; start: number; end: number }[] | null
  moments?: { label: string; timestamp: number }[] | null
  metaTags?: { property: string; value: string }[] | null
}

export interface VideoPage {
  totalItems: number
  currentPage: number
  itemsPerPage: number
  items: StreamVideo[]
}

export class StreamLibraryApi {
  private readonly base: string

  constructor(private readonly options: StreamLibraryApiOptions) {
    this.base = `${options.apiBase.replace(/\/+$/, '')}/library/${options.libraryId}`
  }

  get libraryId(): number {
    return this.options.libraryId
  }

  /** One JSON call, retried while transient; `undefined` for a 404 when `allow404`. */
  async json<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    init: { body?: unknown; signal?: AbortSignal; allow404?: boolean } = {},
  ): Promise<T | undefined> {
    return retry(
      async (signal) => {
        const response = await fetch(`${this.base}/${path}`, {
          method,
          headers: { AccessKey: this.options.apiKey, Accept: 'application/json', ...(init.body !== undefined && { 'Content-Type': 'application/json' }) },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal,
        })
        if (response.status === 404 && init.allow404) {
          await response.body?.cancel().catch(() => {})
          return undefined
        }
        const text = await response.text()
        if (!response.ok)
          throw new UpstreamStatusError(
            response.status,
            `stream API answered ${response.status} to ${method} ${path.split('?')[0]}: ${text.slice(0, 200) || '(no body)'}`,
          )
        return (text ? JSON.parse(text) : {}) as T
      },
      { signal: init.signal, isRetryable: isHostRetryable, retries: this.options.retries },
    ).catch((err: Error) => {
      if (err instanceof UpstreamStatusError || init.signal?.aborted) throw err
      // fetch's own words ("fetch failed") name neither the host nor why: both are the operator's first question.
      const cause = (err.cause as NodeJS.ErrnoException | undefined)?.code ?? (err.cause as Error | undefined)?.message ?? err.message
      throw new Error(`cannot reach the stream API at ${new URL(this.base).origin} (${method} ${path.split('?')[0]}): ${cause}`, { cause: err })
    })
  }

  async listPage(page: number, itemsPerPage: number, signal?: AbortSignal): Promise<VideoPage> {
    const body = await this.json<VideoPage>('GET', `videos?page=${page}&itemsPerPage=${itemsPerPage}&orderBy=date`, { signal })
    if (!body || !Array.isArray(body.items)) throw new Error('the listing has no items array')
    return body
  }

  /**
   * Starts a download from the pull zone (`{guid}/{file}`). The attempt's time limit covers the wait
   * for headers only; the body then streams for as long as it takes, stopped by `signal`.
   */
  async download(file: string, signal: AbortSignal): Promise<Readable> {
    const { pullZoneUrl, pullZoneTokenAuthKey, pullZoneTokenTTL = 3600 } = this.options
    if (!pullZoneUrl) throw new Error('no pull zone configured')
    const plain = `${pullZoneUrl.replace(/\/+$/, '')}/${file.split('/').map(encodeURIComponent).join('/')}`
    const response = await retry(
      async (attempt) => {
        const url = pullZoneTokenAuthKey ? signPullZoneUrl(plain, pullZoneTokenAuthKey, pullZoneTokenTTL) : plain
        const headers = new AbortController()
        const onAbort = () => headers.abort(attempt.reason)
        attempt.addEventListener('abort', onAbort, { once: true })
        let answer: Response
        try {
          answer = await fetch(url, { signal: AbortSignal.any([headers.signal, signal]) })
        } finally {
          attempt.removeEventListener('abort', onAbort)
        }
        if (!answer.ok) {
          await answer.body?.cancel().catch(() => {})
          // The URL may carry a token: name the file only.
          throw new UpstreamStatusError(answer.status, `pull zone answered ${answer.status} to GET ${file}`)
        }
        return answer
      },
      { signal, isRetryable: isHostRetryable, retries: this.options.retries },
    )
    if (!response.body) throw new Error(`pull zone sent no body for ${file}`)
    return Readable.fromWeb(response.body as WebReadableStream)
  }

  /**
   * `PUT videos/{guid}` with the file's bytes, through node:http so the body keeps backpressure
   * (fetch reads a stream body ahead of a slow link). Not retried: the host takes one upload per video.
   */
  async upload(guid: string, body: Readable, size: number, signal?: AbortSignal): Promise<void> {
    const url = new URL(`${this.base}/videos/${encodeURIComponent(guid)}`)
    const headers = { AccessKey: this.options.apiKey, 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) }
    const { status, text } = await putStream(url, headers, body, signal)
    if (status < 200 || status > 299)
      throw new UpstreamStatusError(status, `stream API answered ${status} to PUT videos/${guid}: ${text.slice(0, 200) || '(no body)'}`)
  }
}
