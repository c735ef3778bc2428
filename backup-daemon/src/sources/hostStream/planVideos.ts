/**
 * @module sources/hostStream/planVideos
 * The listing of a whole library (page by page, any size) and, per video, what to download: the
 * original when the host keeps it, else the highest MP4 rendition (`GET .../resolutions`), else
 * nothing (a video without an upload yet, or one with neither).
 */
import { VIDEO_STATUS_CREATED } from './videoStatus.js'
import type { StreamLibraryApi, StreamVideo } from './streamLibraryApi.js'

export type Payload = { kind: 'original' } | { kind: 'rendition'; file: string } | { kind: 'none'; reason: string }

/** Every video, newest first; a video seen twice (the list moved while paging) is kept once. */
export async function listLibrary(api: StreamLibraryApi, pageSize: number, source: string, signal: AbortSignal): Promise<StreamVideo[]> {
  const videos = new Map<string, StreamVideo>()
  for (let page = 1; ; page++) {
    let body
    try {
      body = await api.listPage(page, pageSize, signal)
    } catch (err) {
      if (signal.aborted) throw signal.reason
      throw new Error(`source "${source}": listing page ${page} of library ${api.libraryId} failed: ${(err as Error).message}`, { cause: err })
    }
    for (const video of body.items) videos.set(video.guid, video)
    if (body.items.length === 0 || page * pageSize >= body.totalItems) return [...videos.values()]
  }
}

export async function planPayload(api: StreamLibraryApi, video: StreamVideo, source: string, signal: AbortSignal): Promise<Payload> {
  if (video.status === VIDEO_STATUS_CREATED) return { kind: 'none', reason: 'no upload yet' }
  // An API without `hasOriginal` (older answers): try the original.
  if (video.hasOriginal !== false) return { kind: 'original' }
  if (!video.hasMP4Fallback) return { kind: 'none', reason: 'no original kept and no MP4 fallback' }
  let data: { mp4Resolutions?: { resolution: string; path: string }[] } | undefined
  try {
    data = (await api.json<{ data?: typeof data }>('GET', `videos/${encodeURIComponent(video.guid)}/resolutions`, { signal }))?.data
  } catch (err) {
    if (signal.aborted) throw signal.reason
    throw new Error(`source "${source}": video ${video.guid} ("${video.title}"): reading its resolutions failed: ${(err as Error).message}`, { cause: err })
  }
  const best = (data?.mp4Resolutions ?? [])
    .map((r) => ({ path: r.path, height: Number.parseInt(r.resolution, 10) }))
    .filter((r) => /^play_\d+p\.mp4$/.test(r.path) && Number.isFinite(r.height))
    .sort((a, b) => b.height - a.height)[0]
  return best ? { kind: 'rendition', file: best.path } : { kind: 'none', reason: 'no original kept and no MP4 rendition yet' }
}
