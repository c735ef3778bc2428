'use client'
/**
 * @module client/videoUploads
 * The TUS uploads of the videos editors pick, one per picked file, shared by the components that start
 * them (TusUploadField, as soon as a file is in the form), show them (UploadProgress in the video
 * panel) and wait for them (StreamUploadHandler, when the form saves). Each upload asks tus-auth for a
 * signature, sends the bytes straight to the streaming host with tus-js-client (retry with backoff,
 * pause/resume), and measures bytes, speed and time left on the way.
 */
import { Upload } from 'tus-js-client'

import type { TusAuthResponse } from '../types.js'
import { requestTusAuth } from './tusAuthClient.js'

export type UploadPhase = 'authorizing' | 'uploading' | 'paused' | 'error' | 'done'

export interface VideoUploadState {
  phase: UploadPhase
  bytesSent: number
  bytesTotal: number
  /** Bytes per second over the last few seconds; undefined until measurable. */
  speed?: number
  /** Seconds left at that speed. */
  secondsLeft?: number
  error?: string
  /** The editor pressed Save during the upload: the document is saved when the upload is done. */
  saveQueued: boolean
}

/** What the save needs once the bytes are on the host. */
export interface UploadedVideo {
  filename: string
  signedReceipt: string
  videoId: string
  videoToken: string
}

export interface VideoUploadTarget {
  apiUrl: string
  collectionSlug: string
  /** The host's TUS endpoint (not a secret; the signature comes from tus-auth). */
  tusEndpoint: string
}

type Listener = (state: VideoUploadState) => void

/** Common retry delays for TUS (ms); resumes from the server's offset each time. */
const RETRY_DELAYS = [0, 3000, 5000, 10000, 20000, 60000, 60000]
/** Speed is averaged over this window, so one slow chunk does not swing the estimate. */
const SPEED_WINDOW_MS = 3000

export class VideoUpload {
  state: VideoUploadState
  result?: UploadedVideo
  /** Its receipt went into a save: a new pick of the same file is a new upload (a video binds to one document). */
  handedOut = false
  readonly #listeners = new Set<Listener>()
  readonly #waiters: Array<{ resolve: (video: UploadedVideo) => void; reject: (error: Error) => void }> = []
  #samples: Array<{ at: number; bytes: number }> = []
  #auth?: TusAuthResponse
  #upload?: Upload

  constructor(
    readonly file: File,
    readonly target: VideoUploadTarget,
  ) {
    this.state = { phase: 'authorizing', bytesSent: 0, bytesTotal: file.size, saveQueued: false }
    void this.#run()
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Resolves with the upload's receipt once the bytes are on the host; rejects when it fails. */
  whenDone(): Promise<UploadedVideo> {
    if (this.result) return Promise.resolve(this.result)
    if (this.state.phase === 'error') return Promise.reject(new Error(this.state.error))
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }))
  }

  pause(): void {
    if (this.state.phase !== 'uploading') return
    void this.#upload?.abort()
    this.#set({ phase: 'paused', speed: undefined, secondsLeft: undefined })
  }

  /** Continues a paused or failed upload where the host's offset says. */
  resume(): void {
    if (this.state.phase !== 'paused' && this.state.phase !== 'error') return
    this.#samples = []
    this.#set({ phase: 'authorizing', error: undefined })
    void this.#run()
  }

  queueSave(queued: boolean): void {
    this.#set({ saveQueued: queued })
  }

  #set(patch: Partial<VideoUploadState>): void {
    this.state = { ...this.state, ...patch }
    for (const listener of this.#listeners) listener(this.state)
  }

  #fail(message: string): void {
    this.#set({ phase: 'error', error: message, saveQueued: false, speed: undefined, secondsLeft: undefined })
    for (const waiter of this.#waiters.splice(0)) waiter.reject(new Error(message))
  }

  #progress(sent: number, total: number): void {
    const now = Date.now()
    this.#samples.push({ at: now, bytes: sent })
    while (this.#samples.length > 2 && now - this.#samples[0]!.at > SPEED_WINDOW_MS) this.#samples.shift()
    const first = this.#samples[0]!
    const elapsed = (now - first.at) / 1000
    const speed = elapsed > 0.2 ? (sent - first.bytes) / elapsed : undefined
    const secondsLeft = speed && speed > 0 ? Math.ceil((total - sent) / speed) : undefined
    this.#set({ bytesSent: sent, bytesTotal: total, speed, secondsLeft })
  }

  #finish(auth: TusAuthResponse): void {
    if (!auth.filename || !auth.signedReceipt) {
      this.#fail('tus-auth answered without a receipt for this file')
      return
    }
    this.result = { filename: auth.filename, signedReceipt: auth.signedReceipt, videoId: auth.videoId, videoToken: auth.videoToken }
    this.#set({ phase: 'done', bytesSent: this.file.size, speed: undefined, secondsLeft: 0 })
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(this.result)
  }

  async #run(): Promise<void> {
    const { file, target } = this
    try {
      const previous = this.#auth
      // A retry keeps the same video (fresh signature for it); the first attempt creates one.
      const auth = await requestTusAuth({
        apiUrl: target.apiUrl,
        collectionSlug: target.collectionSlug,
        file,
        resume: previous ? { videoId: previous.videoId, videoToken: previous.videoToken } : undefined,
      })
      this.#auth = auth
      if (auth.type === 'uploaded') return this.#finish(auth)
      const upload = new Upload(file, {
        endpoint: target.tusEndpoint,
        headers: {
          AuthorizationExpire: String(auth.authorizationExpire),
          AuthorizationSignature: auth.authorizationSignature ?? '',
          LibraryId: String(auth.libraryId),
          VideoId: auth.videoId,
        },
        metadata: {
          filetype: file.type,
          title: file.name,
          ...(auth.thumbnailTime !== undefined ? { thumbnailTime: String(auth.thumbnailTime) } : {}),
        },
        onError: (err) => this.#fail(err.message),
        onProgress: (sent, total) => this.#progress(sent, total),
        onSuccess: () => this.#finish(auth),
        retryDelays: RETRY_DELAYS,
        // Continue where the last attempt stopped (same video, fresh signature).
        uploadUrl: this.#upload?.url ?? undefined,
      })
      this.#upload = upload
      this.#set({ phase: 'uploading' })
      upload.start()
    } catch (err) {
      this.#fail((err as Error).message)
    }
  }
}

const uploads = new Map<string, VideoUpload>()
/** Told when an upload starts, so a view can pick up the upload of the file it shows. */
const started = new Set<() => void>()

export function onVideoUploadStarted(listener: () => void): () => void {
  started.add(listener)
  return () => started.delete(listener)
}

/**
 * The same bytes picked again (or renamed in the upload field, which makes a new File of the same
 * bytes) are the same upload: size, type and modification time identify a picked file.
 */
function keyOf(collectionSlug: string, file: File): string {
  return `${collectionSlug}\u0000${file.size}\u0000${file.type}\u0000${file.lastModified}`
}

/** The upload of this file, if one was started. */
export function findVideoUpload(collectionSlug: string, file: File): VideoUpload | undefined {
  return uploads.get(keyOf(collectionSlug, file))
}

/** Starts the upload of a picked file, or returns the one already running or done for it. */
export function startVideoUpload(target: VideoUploadTarget, file: File): VideoUpload {
  const key = keyOf(target.collectionSlug, file)
  const existing = uploads.get(key)
  if (existing && !existing.handedOut) {
    if (existing.state.phase === 'error') existing.resume()
    return existing
  }
  const upload = new VideoUpload(file, target)
  uploads.set(key, upload)
  for (const listener of started) listener()
  return upload
}
