/**
 * @module types
 * Options of the storage plugin. Every upstream base URL is an option so that tests and the dev-app can
 * point the plugin at the local host emulator (dev-app/src/emulator).
 */
import type { PayloadRequest, UploadCollectionSlug } from 'payload'

/** Where the files of an upload collection live. */
export type CollectionTarget =
  /** Files (original and every image size) on the storage host. */
  | 'storage'
  /** Videos on the streaming host; the document keeps `hostData.stream`. */
  | 'stream'

export interface CollectionTargetOptions {
  /** Which host receives the collection's files. */
  target: CollectionTarget
  /** Folder (key prefix) on the storage host for this collection's objects. @default '' */
  prefix?: string
  /**
   * A storage zone of this collection's own (target `storage`): complete options, nothing inherited from
   * the top-level `storage` (its keys, CDN, token authentication and client uploads are this zone's).
   * @default the top-level `storage`
   */
  zone?: StorageOptions
  /**
   * A video library of this collection's own (target `stream`): complete options, nothing inherited from
   * the top-level `stream` (keys, CDN, token authentication, TUS, webhook secret). One webhook endpoint
   * serves every library: a callback is routed by its `VideoLibraryId`. @default the top-level `stream`
   */
  library?: StreamOptions
}

/** Decides whether the signed-in user may get a client-upload URL for a collection. */
export type ClientUploadsAccess = (args: { collectionSlug: UploadCollectionSlug; req: PayloadRequest }) => boolean | Promise<boolean>

export interface ClientUploadsOptions {
  /**
   * Narrows who may get an upload URL. Runs after the CMS check (signed-in user with create or update
   * access to the collection): it can only narrow it, never widen it.
   */
  access?: ClientUploadsAccess
  /** Lifetime of the presigned PUT URL, in seconds. @default 600 */
  expiresIn?: number
  /**
   * Objects written through client uploads that never became a document are deleted by a sweep that
   * runs every `sweepInterval` seconds (0 disables the timer; `sweepOrphanUploads` stays callable).
   * An object is an orphan when no document references its `_objectKey` folder and it is older than
   * the receipt lifetime (6 h), so an upload in progress is never touched. @default 3600
   */
  sweepInterval?: number
}

/**
 * Token authentication of a pull zone (storage or stream): URLs carry `token` + `expires` (the host's
 * HS256 scheme), with an absolute expiry (UNIX seconds, `expiresIn` from the moment the URL is made).
 */
export interface TokenAuthOptions {
  /** The pull zone's token authentication key. */
  key: string
  /** Lifetime of a signed URL, in seconds. @default 3600 */
  expiresIn?: number
  /**
   * Bind each URL to the address of the viewer it is made for (the token becomes `HS256-1-...`): a URL
   * opened from another address is refused by the pull zone, so a leaked URL is useless elsewhere. Turn on
   * the pull zone's token IP validation with it. IPv6 viewers are bound to their /64. A request whose
   * address cannot be read (no `addressHeader`) gets no URL: 403 from the playback endpoint and the file
   * route, `null` in `url`. @default false
   */
  bindToAddress?: boolean
  /**
   * The request header that carries the viewer's address, as the proxy in front of the CMS sets it (it
   * must overwrite or append to what the client sent): of a list, the last entry counts (the one the
   * nearest proxy appended). Only read with `bindToAddress`. @default 'x-forwarded-for'
   */
  addressHeader?: string
  /**
   * A folder of the pull zone (`'images'`, `''` for all of it) whose every file a URL's token opens
   * (`token_path`), instead of the one file it names: a page can then fetch a document's sizes, or any
   * file of the folder, under one token. URLs of files outside the folder are signed for their own path.
   * @default undefined (each URL opens its own file; HLS playlists always open their video's folder)
   */
  pathPrefix?: string
}

export interface StorageOptions {
  /** Storage zone name (first path segment of every storage API and S3 key). */
  zoneName: string
  /** Storage zone password: `AccessKey` header of the storage API and SigV4 secret of the S3 endpoint. */
  accessKey: string
  /**
   * Storage region. Picks the default `endpoint` (`https://{region}.storage.bunnycdn.com`) and
   * `s3Endpoint` (`https://{region}-s3.storage.bunnycdn.com`). @default '' (main region, `de` for S3)
   */
  region?: string
  /** Storage API base URL. @default 'https://storage.bunnycdn.com' (or the regional one) */
  endpoint?: string
  /** S3-compatible endpoint used for presigned client uploads. @default 'https://{region|de}-s3.storage.bunnycdn.com' */
  s3Endpoint?: string
  /**
   * Pull zone (CDN) base URL, e.g. `https://my-zone.b-cdn.net`. When set, documents get CDN URLs and
   * the CMS file route answers with a 302 to the CDN instead of proxying the bytes.
   */
  cdnUrl?: string
  /**
   * Token authentication of the pull zone: URLs carry `token` + `expires` (HS256 scheme).
   * Requires `cdnUrl`.
   */
  tokenAuth?: TokenAuthOptions
  /**
   * How `GET /api/{collection}/file/{filename}` serves a file: `proxy` streams it from the storage API
   * (honouring `Range`), `redirect` answers 302 to the (token-signed) CDN URL.
   * @default 'redirect' when `cdnUrl` is set, else 'proxy'
   */
  serve?: 'proxy' | 'redirect'
  /**
   * Documents carry the pull-zone URL itself in `url` (token-signed at read time when `tokenAuth` is set)
   * instead of the CMS file route. Files are then public to anyone with the URL: Payload's read access no
   * longer guards them. Requires `cdnUrl`. @default false
   */
  publicUrls?: boolean
  /** Browser-direct uploads to the S3-compatible endpoint. `true` enables them with defaults. @default false */
  clientUploads?: boolean | ClientUploadsOptions
  /**
   * Purges a file's pull-zone URLs (the original and every image size) from the CDN cache when the file
   * is replaced or its document deleted, through the host's purge API. Requires `cdnUrl`. A failed purge
   * is logged and never fails the save or the delete.
   */
  purge?: PurgeOptions
}

/** CDN cache purge through the host's account API (`POST {apiBase}/purge?url=...`). */
export interface PurgeOptions {
  /** The account API key (`AccessKey` header of the purge API; not the storage zone password). Never sent to browsers. */
  apiKey: string
  /** Account API base URL. @default 'https://api.bunny.net' */
  apiBase?: string
  /** Keeps the options but sends no purge (e.g. in development). @default false */
  disabled?: boolean
}

/** Replaces the default access check of tus-auth (current generation). */
export type TusAccess = (args: { collectionSlug: string; req: PayloadRequest }) => boolean | Promise<boolean>

/** Runs in addition to the default access check of tus-auth (earlier generation). */
export type TusCheckAccess = (req: PayloadRequest, body: TusAuthRequest) => boolean | Promise<boolean>

export interface TusOptions {
  /**
   * Replaces the default check (signed-in user with create or update access to the collection).
   * A signed-in user is still required: the `videoToken` is bound to one.
   */
  access?: TusAccess
  /** Earlier-generation hook: runs after the default check (or `access`) and can only narrow it. */
  checkAccess?: TusCheckAccess
  /** Lifetime of the TUS `authorizationSignature`, in seconds. @default 3600 */
  expiresIn?: number
}

export interface StreamOptions {
  /** Stream library id. */
  libraryId: number
  /** Library API key: `AccessKey` of the stream API and part of the TUS signature. Never sent to browsers. */
  apiKey: string
  /** Stream API base URL. @default 'https://video.bunnycdn.com' */
  apiBase?: string
  /** TUS upload endpoint. @default 'https://video.bunnycdn.com/tusupload' */
  tusEndpoint?: string
  /** Stream pull zone base URL, e.g. `https://vz-abc.b-cdn.net` (playlist, thumbnail, MP4 fallback). */
  cdnUrl: string
  /** MIME types the streaming host accepts (patterns like `video/*`). @default ['video/*'] */
  mimeTypes?: string[]
  /** The library has MP4 fallback on: completion fills `hostData.stream.resolutions` with MP4 URLs. @default false */
  mp4Fallback?: boolean
  /** Thumbnail capture time in ms, passed to the host when a video is created (0 = the first frame). */
  thumbnailTime?: number
  /**
   * Token authentication of the stream pull zone: the playback endpoint answers short-lived signed URLs
   * (HLS with a directory token in the path, so segment URLs inherit it; MP4 and thumbnail with query tokens).
   */
  tokenAuth?: TokenAuthOptions
  /** Browser-direct resumable uploads authorised by `POST /api/storage-host/stream/tus-auth`. `true` enables defaults. @default false */
  tus?: boolean | TusOptions
  /**
   * Deletes, every `interval` seconds, the library's videos older than 25 h (the `videoToken` lifetime
   * + 1 h) that no document of this CMS holds: uploads abandoned after tus-auth. Only for a library that
   * belongs to this CMS alone (it would delete other applications' videos). `sweepOrphanVideos` is
   * exported for running it from a job instead. @default false (`interval` 3600 when enabled)
   */
  sweepUnboundVideos?: boolean | { interval?: number }
  /** Encoding callbacks on `POST /api/storage-host/stream/webhook`. */
  webhook?: {
    /** The library's read-only API key, which signs the callbacks. */
    secret: string
  }
}

export interface StorageHostPluginOptions {
  /**
   * Turns the plugin off: the schema (fields) is still added so the database stays the same, but no
   * adapter, endpoint, hook or admin component is installed. @default false
   */
  disabled?: boolean
  /** Upload collections handled by the plugin and where their files go. */
  collections: Partial<Record<UploadCollectionSlug, CollectionTarget | CollectionTargetOptions>>
  /** Storage host: the zone of every `storage` collection without a `zone` of its own. */
  storage?: StorageOptions
  /** Streaming host: the library of every `stream` collection without a `library` of its own. */
  stream?: StreamOptions
}

/** JSON body of `POST /api/storage-host/stream/tus-auth`. */
export interface TusAuthRequest {
  collection: string
  filename: string
  filesize: number
  filetype: string
  head?: string
  title?: string
  videoId?: string
  videoToken?: string
}

/** 200 answer of tus-auth. */
export interface TusAuthResponse {
  type: 'upload' | 'uploaded'
  videoId: string
  videoToken: string
  libraryId: number
  authorizationSignature?: string
  authorizationExpire?: number
  thumbnailTime?: number
  filename?: string
  signedReceipt?: string
  /** Only with `type: uploaded`: the host's video status name. */
  status?: string
}

/** `hostData.stream` as stored on a video document. */
export interface StreamHostData {
  videoId?: string | null
  libraryId?: number | null
  status?: string | null
  encodeProgress?: number | null
  playlistUrl?: string | null
  thumbnailUrl?: string | null
  availableResolutions?: string | null
  resolutions?: Array<{ resolution: string; url: string }> | null
  videoToken?: string | null
}

/** 200 answer of `GET /api/{videoCollection}/{id}/playback`. */
export interface PlaybackUrls {
  /** HLS master playlist. */
  hls?: string
  /** MP4 fallback renditions (empty without MP4 fallback). */
  mp4: Array<{ resolution: string; url: string }>
  thumbnail?: string
  /** RFC 3339; only when the URLs are signed (stream `tokenAuth`). */
  expiresAt?: string
}

/** @deprecated The plugin's name is "storage host": use {@link StorageHostPluginOptions}. Kept for existing configs. */
export type HostStoragePluginOptions = StorageHostPluginOptions
