/**
 * @module emulator/encoding/simulateEncoding
 * After a TUS upload completes: walks the video through the host's encoding stages, updating the video
 * object and sending each webhook callback in order (each one delivered, or given up after its
 * retries, before the next stage). The waiting stages last `encodingStepMs` each; the renditions are
 * encoded for real by ffmpeg (encoding/ffmpeg.ts), so the HLS playlists, segments, MP4 fallback files
 * and the thumbnail are the video's own.
 *
 * | stage | webhook `Status` | video `status` |
 * |---|---|---|
 * | queued | 0 Queued | 1 Uploaded |
 * | probing | 1 Processing | 2 Processing |
 * | not a video (magic bytes), or ffmpeg fails | 5 Failed | 5 Error |
 * | encoding (thumbnail written) | 2 Encoding | 3 Transcoding |
 * | each rendition done | 4 Resolution finished | 3 Transcoding (+ `availableResolutions`, `encodeProgress`) |
 * | done | 3 Finished | 4 Finished (`encodeProgress` 100) |
 *
 * Without ffmpeg, or for a container with no decodable frames (the protocol tests' synthetic MP4s), the
 * stages still run, one step each, but nothing playable is made: the CDN then has a master playlist
 * whose variants 404 and a placeholder thumbnail. Such a file's frame size comes from its `tkhd` box,
 * or is assumed 1280×720, 10 s long.
 */
import { mkdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { EmulatorContext } from '../context.js'
import { VideoStatus, WebhookStatus } from '../stream/statuses.js'
import type { VideoRecord } from '../stream/VideoStore.js'
import { encodeRendition, ffmpegAvailable, probeVideo, writeThumbnail, type ProbedVideo } from './ffmpeg.js'
import { planResolutions } from './planResolutions.js'
import { sendWebhook } from './sendWebhook.js'
import { sniffVideo } from './sniffVideo.js'

/** Where the thumbnail is taken without a `thumbnailTime` (ms), as on the host. */
const DEFAULT_THUMBNAIL_MS = 1000

export const DEFAULT_FRAME = { width: 1280, height: 720, duration: 10 } as const

export async function simulateEncoding(ctx: EmulatorContext, guid: string): Promise<void> {
  const { options, closing } = ctx
  /** The video if it still exists (it may be deleted mid-way: then the simulation stops). */
  const current = (): VideoRecord | undefined => ctx.videos.get(guid)
  const notify = async (status: number): Promise<void> => {
    const url = options.webhookUrl
    if (!url) return
    await sendWebhook({
      url,
      body: { VideoLibraryId: options.libraryId, VideoGuid: guid, Status: status },
      readOnlyKey: options.readOnlyKey,
      retries: options.webhookRetries,
      backoffMs: Math.max(50, options.encodingStepMs),
      signal: closing,
      log: ctx.log,
    })
  }
  const step = async (): Promise<VideoRecord | undefined> => {
    await sleep(options.encodingStepMs, undefined, { signal: closing }).catch(() => undefined)
    return closing.aborted ? undefined : current()
  }
  const fail = async (video: VideoRecord, reason: string): Promise<void> => {
    video.status = VideoStatus.Error
    ctx.log(`encoding ${guid}: ${reason}`)
    await notify(WebhookStatus.Failed)
  }
  try {
    let video = current()
    if (!video?.originalPath) return
    const original = video.originalPath
    const facts = await sniffVideo(original)
    const outDir = path.join(ctx.dirs.encoded, guid)
    // A restarted encode starts from nothing.
    video.encodedDir = undefined
    await rm(outDir, { force: true, recursive: true })
    await notify(WebhookStatus.Queued)

    if (!(video = await step())) return
    video.status = VideoStatus.Processing
    await notify(WebhookStatus.Processing)
    const probed = facts.isVideo ? await probeReal(ctx, guid, original) : undefined

    if (!(video = await step())) return
    if (!facts.isVideo) return await fail(video, 'not a video')
    video.width = probed?.width ?? facts.width ?? DEFAULT_FRAME.width
    video.height = probed?.height ?? facts.height ?? DEFAULT_FRAME.height
    video.length = Math.round(probed?.duration ?? facts.duration ?? DEFAULT_FRAME.duration)
    video.framerate = 25
    if (probed) {
      await mkdir(outDir, { recursive: true })
      const at = (video.thumbnailTime ?? DEFAULT_THUMBNAIL_MS) / 1000
      try {
        await writeThumbnail(original, path.join(outDir, 'thumbnail.jpg'), at, probed, closing)
      } catch (error) {
        return await fail(video, (error as Error).message)
      }
      video.encodedDir = outDir
      video.hasAudio = probed.hasAudio
    }
    video.status = VideoStatus.Transcoding
    await notify(WebhookStatus.Encoding)

    const plan = planResolutions(video.height, options.mp4Fallback)
    const share = (done: number) => Math.round((done / (plan.hls.length + 1)) * 100)
    for (const [index, resolution] of plan.hls.entries()) {
      const height = Number.parseInt(resolution, 10)
      const keepMp4 = plan.mp4.includes(height)
      if (probed) {
        const target = video
        try {
          await encodeRendition({
            input: original,
            dir: outDir,
            height,
            video: probed,
            keepMp4,
            signal: closing,
            onProgress: (fraction) => (target.encodeProgress = Math.max(target.encodeProgress, share(index + fraction))),
          })
        } catch (error) {
          if (closing.aborted) return
          return await fail(video, (error as Error).message)
        }
        if (!(video = current())) return
      } else if (!(video = await step())) return
      video.availableResolutions.push(resolution)
      video.encodeProgress = share(index + 1)
      if (keepMp4) {
        video.mp4Heights.push(height)
        video.hasMP4Fallback = true
      }
      await notify(WebhookStatus.ResolutionFinished)
    }

    if (!(video = await step())) return
    video.status = VideoStatus.Finished
    video.encodeProgress = 100
    ctx.log(`encoding ${guid}: finished (${video.availableResolutions.join(',')}${probed ? '' : ', nothing playable: see above'})`)
    await notify(WebhookStatus.Finished)
  } finally {
    ctx.videos.settle(guid)
  }
}

/** ffprobe's view of the upload, or undefined (logged) when nothing playable can be made of it. */
async function probeReal(ctx: EmulatorContext, guid: string, original: string): Promise<ProbedVideo | undefined> {
  if (!(await ffmpegAvailable())) {
    ctx.log(`encoding ${guid}: ffmpeg/ffprobe not found (Debian package ffmpeg): no playable renditions, placeholder thumbnail`)
    return undefined
  }
  const probed = await probeVideo(original, ctx.closing).catch(() => undefined)
  if (!probed) ctx.log(`encoding ${guid}: ffprobe finds no decodable video stream: no playable renditions, placeholder thumbnail`)
  return probed
}
