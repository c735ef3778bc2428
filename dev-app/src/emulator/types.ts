/**
 * @module emulator/types
 * The contract of the local emulator of the storage and streaming host (a bunny.net-style host, see
 * docs/notes/host-protocols.md). One HTTP server, one path prefix per upstream, so that every
 * upstream base URL of plugin-storage and of the daemon's `host` storage can point at it.
 *
 * | upstream | base URL |
 * |---|---|
 * | storage API (`AccessKey` header) | `${url}/storage` → `PUT/GET/DELETE /storage/{zone}/{path}`, list `GET /storage/{zone}/{dir}/` |
 * | S3-compatible endpoint (SigV4 presigned PUT for client uploads) | `${url}/s3` → `PUT /s3/{zone}/{key}?X-Amz-...` |
 * | storage pull zone (CDN) | `${url}/cdn/{zone}` → `GET /cdn/{zone}/{path}` (token-checked when `pullZone.tokenAuthKey` is set) |
 * | stream API (`AccessKey` header) | `${url}/stream` → `/stream/library/{libraryId}/videos[/{guid}[/resolutions|/captions/{srclang}]]`, |
 * |  | `/stream/library/{libraryId}/collections[/{id}]`; `PUT .../videos/{guid}` uploads the bytes |
 * | TUS upload | `${url}/tusupload` |
 * | stream pull zone (token-checked when `stream.tokenAuthKey` is set) | `${url}/stream-cdn/{libraryId}` → `/{guid}/playlist.m3u8`, `thumbnail.jpg`, |
 * |  | `preview.webp`, `play_{h}p.mp4`, `original`, `captions/{srclang}.vtt` |
 * | account API: cache purge (`AccessKey` = account API key) | `${url}` → `POST /purge?url=...`; emulator-only `GET /purge/log` |
 */

export interface EmulatorOptions {
  /** @default 0 (a free port) */
  port?: number
  /** @default "127.0.0.1" */
  host?: string
  /** Where stored files, videos and TUS parts live. @default a new temporary folder, removed on close */
  dataDir?: string
  /** A connection that has not sent a request's headers within this time is closed (slow-loris). @default 10000 */
  headersTimeoutMs?: number
  /**
   * Time a whole request (headers and body) may take; past it the connection is closed (408). 0 turns
   * it off. Large enough for a 1 GiB upload on a slow link. @default 1800000 (30 min)
   */
  requestTimeoutMs?: number
  storage?: {
    /** @default "dev-zone" */
    zoneName?: string
    /**
     * Storage zone password, sent as `AccessKey`; also the SigV4 secret of the S3-compatible endpoint (access key id = zone name).
     * @default a random key per start (`running.storage.accessKey`)
     */
    accessKey?: string
    /**
     * Region the S3-compatible endpoint insists on in the SigV4 credential scope (e.g. `"de"`).
     * When unset, any region in the scope is accepted (the signature still has to match it).
     */
    region?: string
    /**
     * Refuse (400 BadDigest) a presigned PUT whose query-string flexible checksum
     * (`x-amz-checksum-crc32`/`-sha256`) does not match the body, as R2, Garage or SeaweedFS do.
     * AWS S3 ignores those query values. `Content-MD5` and checksum headers are always verified.
     * @default false
     */
    strictQueryChecksums?: boolean
    /**
     * More storage zones on the same host, each with its own password, files (`storage/{zone}`), S3 bucket and
     * pull zone (`/cdn/{zone}`), as an account holds several; the pull zone settings below apply to all.
     * @default []
     */
    extraZones?: Array<{ zoneName: string; accessKey?: string }>
  }
  pullZone?: {
    /** When set, CDN requests need a valid `token` + `expires` (current HS256 scheme). */
    tokenAuthKey?: string
    /**
     * Serve HTML, XHTML, SVG, XML and JavaScript files as their own type (under a sandboxing CSP)
     * instead of as `application/octet-stream` downloads (`Content-Disposition: attachment`).
     * @default false
     */
    inlineActiveContent?: boolean
    /**
     * Zone folders the pull zone refuses (403), like a real pull zone's Edge Rule "block request" on
     * a path: files the storage API reaches but the public CDN must not serve (the dev-app's backups).
     * Each entry is a folder such as `private-backups/`.
     * @default []
     */
    blockedPaths?: string[]
  }
  stream?: {
    /** @default 1001 */
    libraryId?: number
    /** Library API key (`AccessKey` on the stream API, part of the TUS signature). @default a random key per start (`running.stream.apiKey`) */
    apiKey?: string
    /** Read-only key that signs webhook callbacks. @default a random key per start (`running.stream.readOnlyKey`) */
    readOnlyKey?: string
    /** Where encoding callbacks are POSTed; none are sent while unset. */
    webhookUrl?: string
    /** Delay between simulated encoding steps, in ms. @default 200 */
    encodingStepMs?: number
    /** Whether the library produces MP4 fallback files (`play_{h}p.mp4`, up to 720p). @default true */
    mp4Fallback?: boolean
    /**
     * The library's "Keep original files" setting: whether an upload finished from now on keeps its
     * original (`{guid}/original`, `hasOriginal`). `setKeepOriginals()` changes it at run time. @default true
     */
    keepOriginals?: boolean
    /** Extra delivery attempts of a failed webhook callback (backoff doubles from `max(50, encodingStepMs)` ms). @default 4 */
    webhookRetries?: number
    /** When set, the stream pull zone requires HS256 `token` + `expires` (query, or a directory token in the path). */
    tokenAuthKey?: string
    /**
     * More video libraries on the same host, each with its own keys, videos, collections and pull zone
     * (`/stream-cdn/{libraryId}`); the other stream settings (webhook URL, encoding, token key) apply to all.
     * A library's webhooks carry its `VideoLibraryId` and are signed with its read-only key.
     * @default []
     */
    extraLibraries?: Array<{ libraryId: number; apiKey?: string; readOnlyKey?: string }>
  }
  account?: {
    /** Account API key: `AccessKey` of the purge API. @default a random key per start (`running.account.apiKey`) */
    apiKey?: string
  }
  /**
   * Receives one line per request (method, path, status: never the query, which carries signatures and tokens) and per notable
   * event; never keys. @default no logging
   */
  log?: (line: string) => void
}

export interface EmulatedVideo {
  guid: string
  libraryId: number
  title: string
  /** The video object's `status` (0 Created ... 4 Finished, 5 Error). */
  status: number
  /** Thumbnail capture time in ms as sent on creation (API body or TUS metadata), when any. */
  thumbnailTime: number | undefined
  /** Bytes received through TUS so far. */
  storageSize: number
  availableResolutions: string[]
  hasMP4Fallback: boolean
}

/** One accepted purge request. */
export interface PurgeRecord {
  url: string
  /** RFC 3339 */
  purgedAt: string
}

export interface RunningEmulator {
  /** e.g. `http://127.0.0.1:3100` */
  url: string
  storage: { endpoint: string; s3Endpoint: string; zoneName: string; accessKey: string; cdnUrl: string; tokenAuthKey?: string; region?: string }
  stream: { apiBase: string; tusEndpoint: string; cdnUrl: string; libraryId: number; apiKey: string; readOnlyKey: string; tokenAuthKey?: string }
  /** Every storage zone, the one of `storage` first, then `extraZones`. */
  zones: Array<{ zoneName: string; accessKey: string; cdnUrl: string }>
  /** Every video library, the one of `stream` first, then `extraLibraries`. */
  libraries: Array<{ libraryId: number; apiKey: string; readOnlyKey: string; cdnUrl: string }>
  /** The account API (cache purge): base URL (`POST {apiBase}/purge?url=`) and key. */
  account: { apiBase: string; apiKey: string }
  /** URLs purged so far, oldest first (also `GET /purge/log`). */
  purges(): PurgeRecord[]
  /** Changes (or clears) the webhook target at run time, e.g. once the CMS knows its port. */
  setWebhookUrl(url: string | undefined): void
  /** Changes the library's "Keep original files" setting for uploads that finish afterwards. */
  setKeepOriginals(keep: boolean): void
  /** What the emulator holds, for tests: the videos of every library. */
  videos(): EmulatedVideo[]
  /**
   * Resolves when the video's simulated encoding has ended (Finished or Error; at once if it already
   * has) and every callback was delivered or given up; rejects for an unknown or deleted video.
   */
  whenEncoded(guid: string): Promise<EmulatedVideo>
  /**
   * Absolute path of a stored object (`zonePath` relative to the zone root; `zoneName` defaults to the first
   * zone), or undefined when absent (tests compare bytes).
   */
  storedFilePath(zonePath: string, zoneName?: string): string | undefined
  close(): Promise<void>
}
