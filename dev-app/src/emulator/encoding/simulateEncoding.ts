/**
 * @module emulator/encoding/simulateEncoding
 * After a TUS upload completes: walks the video through the host's encoding stages, one step every
 * `encodingStepMs`, updating the video object and sending each webhook callback in order (each one
 * delivered, or given up after its retries, before the next stage).
 *
 * | stage | webhook `Status` | video `status` |
 * |---|---|---|
 * | queued | 0 Queued | 1 Uploaded |
 * | probing | 1 Processing | 2 Processing |
 * | not a video (magic bytes) | 5 Failed | 5 Error |
 * | encoding | 2 Encoding | 3 Transcoding |
 * | each rendition done | 4 Resolution finished | 3 Transcoding (+ `availableResolutions`) |
 * | done | 3 Finished | 4 Finished (`encodeProgress` 100) |
 *
 * A file whose frame size cannot be read (not MP4/QuickTime, or no `tkhd`) is assumed 1280×720,
 * 10 s long.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { EmulatorContext } from '../context.js'
import { VideoStatus, WebhookStatus } from '../stream/statuses.js'
import type { VideoRecord } from '../stream/VideoStore.js'
import { planResolutions } from './planResolutions.js'
import { sendWebhook } from './sendWebhook.js'
import { sniffVideo } from './sniffVideo.js'

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
  try {
    let video = current()
    if (!video?.originalPath) return
    const facts = await sniffVideo(video.originalPath)
    await notify(WebhookStatus.Queued)

    if (!(video = await step())) return
    video.status = VideoStatus.Processing
    await notify(WebhookStatus.Processing)

    if (!(video = await step())) return
    if (!facts.isVideo) {
      video.status = VideoStatus.Error
      ctx.log(`encoding ${guid}: not a video`)
      await notify(WebhookStatus.Failed)
      return
    }
    video.width = facts.width ?? DEFAULT_FRAME.width
    video.height = facts.height ?? DEFAULT_FRAME.height
    video.length = Math.round(facts.duration ?? DEFAULT_FRAME.duration)
    video.framerate = 25
    video.status = VideoStatus.Transcoding
    await notify(WebhookStatus.Encoding)

    const plan = planResolutions(video.height, options.mp4Fallback)
    for (const [index, resolution] of plan.hls.entries()) {
      if (!(video = await step())) return
      video.availableResolutions.push(resolution)
      video.encodeProgress = Math.round(((index + 1) / (plan.hls.length + 1)) * 100)
      const height = Number.parseInt(resolution, 10)
      if (plan.mp4.includes(height)) {
        video.mp4Heights.push(height)
        video.hasMP4Fallback = true
      }
      await notify(WebhookStatus.ResolutionFinished)
    }

    if (!(video = await step())) return
    video.status = VideoStatus.Finished
    video.encodeProgress = 100
    ctx.log(`encoding ${guid}: finished (${video.availableResolutions.join(',')})`)
    await notify(WebhookStatus.Finished)
  } finally {
    ctx.videos.settle(guid)
  }
}
