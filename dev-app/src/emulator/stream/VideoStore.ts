/**
 * @module emulator/stream/VideoStore
 * The library's videos, in memory (the emulator's stream state lives as long as the process).
 */
import { randomUUID } from 'node:crypto'
import type { EmulatedVideo } from '../types.js'
import { VideoStatus } from './statuses.js'

export interface VideoRecord {
  guid: string
  libraryId: number
  title: string
  collectionId: string
  thumbnailTime: number | undefined
  dateUploaded: Date
  status: VideoStatus
  encodeProgress: number
  /** Seconds. */
  length: number
  width: number
  height: number
  framerate: number
  /** Bytes received (during TUS) then stored. */
  storageSize: number
  /** HLS renditions, e.g. `['240p', '360p']`, in encoding order. */
  availableResolutions: string[]
  /** Heights of the MP4 fallback files (`play_{h}p.mp4`). */
  mp4Heights: number[]
  hasMP4Fallback: boolean
  /** Absolute path of the uploaded original once the TUS upload completed. */
  originalPath: string | undefined
  /** TUS upload id that carries this video's bytes. */
  uploadId: string | undefined
  /**
   * Folder of what ffmpeg made of the upload (`{h}p/video.m3u8` + segments, `play_{h}p.mp4`,
   * `thumbnail.jpg`); undefined when the upload was not encoded for real (no ffmpeg, no decodable frames).
   */
  encodedDir?: string
  /** Whether the encoded renditions carry an audio track (the master playlist's `CODECS`). */
  hasAudio?: boolean
  /**
   * Whether the host keeps the original (the library's "Keep original files" setting when the upload
   * finished). Without it `{guid}/original` is not served and `hasOriginal` is false; the bytes stay
   * on disk for encoding only. Undefined (state saved before the setting existed) means kept.
   */
  originalKept?: boolean
  /** Caption tracks (`POST .../captions/{srclang}`); the files live in `captions/{guid}/{srclang}.vtt`. */
  captions?: VideoCaption[]
  /** Chapters as set through `POST .../videos/{guid}` (`{title, start, end}`, seconds). */
  chapters?: VideoChapter[]
}

export interface VideoCaption {
  srclang: string
  label: string
}

export interface VideoChapter {
  title: string
  start: number
  end: number
}

/** What settles when a video's simulated encoding ends (Finished or Error). */
interface Waiter {
  resolve: (video: EmulatedVideo) => void
  reject: (error: Error) => void
}

export class VideoStore {
  readonly #videos = new Map<string, VideoRecord>()
  readonly #waiters = new Map<string, Waiter[]>()

  constructor(readonly libraryId: number) {}

  create(title: string, thumbnailTime: number | undefined, collectionId = ''): VideoRecord {
    const video: VideoRecord = {
      guid: randomUUID(),
      libraryId: this.libraryId,
      title,
      collectionId,
      thumbnailTime,
      dateUploaded: new Date(),
      status: VideoStatus.Created,
      encodeProgress: 0,
      length: 0,
      width: 0,
      height: 0,
      framerate: 0,
      storageSize: 0,
      availableResolutions: [],
      mp4Heights: [],
      hasMP4Fallback: false,
      originalPath: undefined,
      uploadId: undefined,
    }
    this.#videos.set(video.guid, video)
    return video
  }

  /** Puts back videos saved by an earlier run (same `dataDir`). */
  restore(records: VideoRecord[]): void {
    for (const record of records) this.#videos.set(record.guid, record)
  }

  get(guid: string): VideoRecord | undefined {
    return this.#videos.get(guid)
  }

  list(): VideoRecord[] {
    return [...this.#videos.values()]
  }

  delete(guid: string): VideoRecord | undefined {
    const video = this.#videos.get(guid)
    this.#videos.delete(guid)
    return video
  }

  /** Called by the encoder when it stops (Finished, Error, or the video was deleted). */
  settle(guid: string): void {
    const video = this.#videos.get(guid)
    const waiters = this.#waiters.get(guid) ?? []
    this.#waiters.delete(guid)
    for (const waiter of waiters) {
      if (video) waiter.resolve(toEmulatedVideo(video))
      else waiter.reject(new Error(`video ${guid} was deleted`))
    }
  }

  /** Resolves once the video's encoding simulation has ended (at once when it already has). */
  whenEncoded(guid: string): Promise<EmulatedVideo> {
    const video = this.#videos.get(guid)
    if (!video) return Promise.reject(new Error(`unknown video ${guid}`))
    if (video.status === VideoStatus.Finished || video.status === VideoStatus.Error) return Promise.resolve(toEmulatedVideo(video))
    return new Promise((resolve, reject) => {
      const list = this.#waiters.get(guid) ?? []
      list.push({ resolve, reject })
      this.#waiters.set(guid, list)
    })
  }
}

export function toEmulatedVideo(video: VideoRecord): EmulatedVideo {
  return {
    guid: video.guid,
    libraryId: video.libraryId,
    title: video.title,
    thumbnailTime: video.thumbnailTime,
    status: video.status,
    storageSize: video.storageSize,
    availableResolutions: [...video.availableResolutions],
    hasMP4Fallback: video.hasMP4Fallback,
  }
}
