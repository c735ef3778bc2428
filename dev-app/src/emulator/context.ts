/**
 * @module emulator/context
 * What every upstream handler receives: resolved options, the folders on disk, the video store.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ResolvedOptions } from './config/resolveOptions.js'
import type { CollectionStore } from './stream/CollectionStore.js'
import type { VideoStore } from './stream/VideoStore.js'
import type { PurgeRecord } from './types.js'

export interface EmulatorDirs {
  /** Root of everything the emulator writes. */
  root: string
  /** `storage/{zone}`: the zone's files, shared by the storage API, S3 endpoint and CDN. */
  zone: string
  /** Temporary names of files being written (renamed into the zone once complete). */
  tmp: string
  /** @tus/file-store's folder: TUS parts and, once complete, video originals. */
  tus: string
  /** `encoded/{guid}/`: ffmpeg's renditions, MP4 fallback files and thumbnail of each video. */
  encoded: string
  /** `captions/{guid}/{srclang}.vtt`: caption files added through the stream API. */
  captions: string
}

export interface EmulatorContext {
  options: ResolvedOptions
  dirs: EmulatorDirs
  videos: VideoStore
  collections: CollectionStore
  /** Starts (or restarts) the encoding of an uploaded video (TUS or `PUT .../videos/{guid}`). */
  startEncoding(guid: string): void
  /** Public base URL of the server, e.g. `http://127.0.0.1:3100` (known once listening). */
  baseUrl(): string
  /** Checksums (uppercase hex sha256) of files written through the emulator, by zone-relative path. */
  checksums: Map<string, string>
  /** Aborted on close: stops encoding simulations and webhook retries. */
  closing: AbortSignal
  /** Accepted cache purges, oldest first (bounded: tests read it, nothing else). */
  purges: PurgeRecord[]
  log(line: string): void
  /**
   * The context of a storage zone (its name, password, folder and checksums; everything else shared), or
   * undefined for a zone the host does not have. The first zone's is the emulator's own context.
   */
  zone(name: string): EmulatorContext | undefined
  /** The context of a video library (its id, keys, videos and collections), or undefined for an unknown id. */
  library(id: number | string): EmulatorContext | undefined
  /** Every library's context, the first library's first. */
  libraries(): EmulatorContext[]
}

/**
 * The request target as sent. `rawPath` is taken from `req.url` before any URL parsing, because the
 * WHATWG parser folds `..` and `%2e%2e` away and would hide an escape attempt from the checks.
 */
export interface RequestTarget {
  rawPath: string
  query: URLSearchParams
}

/** One upstream: answers the request or returns false when the path is not its own. */
export type UpstreamHandler = (req: IncomingMessage, res: ServerResponse, target: RequestTarget, ctx: EmulatorContext) => Promise<boolean>
