/**
 * @module cleanup/sweepOrphanVideos
 * tus-auth creates the video on the streaming host before any document exists; an upload abandoned in
 * the browser leaves that video behind. Once the `videoToken` lifetime (24 h) has passed it can never be
 * bound, so a video older than that which no document of this CMS holds is an orphan.
 *
 * Nothing is recorded on the request path (a database write per tus-auth, a disk sync on SQLite, tripled
 * its latency): the sweep lists the library instead. That is only safe when the library belongs to this
 * CMS alone, hence the explicit opt-in `stream.sweepUnboundVideos`.
 */
import type { Payload } from 'payload'

import { VIDEO_TOKEN_TTL_SECONDS } from '../constants.js'
import { streamApiConfig } from '../context.js'
import { librariesOf, type ResolvedOptions, type ResolvedStream } from '../options/resolveOptions.js'
import { deleteVideo, listVideos } from '../upstream/streamApi.js'

export interface VideoSweepOptions {
  /** Videos uploaded less than this long ago (ms) are left alone. @default 25 h (token lifetime + 1 h) */
  olderThanMs?: number
  /** @default Date.now() */
  now?: number
  /** Only this library (the timer of `sweepUnboundVideos` sweeps its own). @default every library of the options */
  library?: ResolvedStream
}

/**
 * Deletes the videos of each library (the one asked, else every library of the options) that no
 * document holds and that are older than the cutoff; answers their ids. A video counts as held when any
 * stream collection holds its id (several collections may share a library).
 */
export async function sweepOrphanVideos(payload: Payload, options: ResolvedOptions, sweep: VideoSweepOptions = {}): Promise<string[]> {
  const libraries = sweep.library ? [sweep.library] : librariesOf(options)
  const cutoff = (sweep.now ?? Date.now()) - (sweep.olderThanMs ?? (VIDEO_TOKEN_TTL_SECONDS + 3600) * 1000)
  const streamSlugs = [...options.collections.values()].filter((c) => c.target === 'stream').map((c) => c.slug)
  const deleted: string[] = []
  for (const library of libraries) {
    const api = streamApiConfig(library)
    const candidates: string[] = []
    for (let page = 1; page <= 1000; page++) {
      const { items, totalItems, itemsPerPage } = await listVideos(api, page, 100)
      for (const video of items) {
        const uploaded = Date.parse(video.dateUploaded?.endsWith('Z') ? video.dateUploaded : `${video.dateUploaded ?? ''}Z`)
        if (Number.isFinite(uploaded) && uploaded < cutoff) candidates.push(video.guid)
      }
      if (page * itemsPerPage >= totalItems || items.length === 0) break
    }
    for (const guid of candidates) {
      let bound = false
      for (const slug of streamSlugs) {
        const { totalDocs } = await payload.count({ collection: slug, overrideAccess: true, where: { 'hostData.stream.videoId': { equals: guid } } })
        if (totalDocs > 0) bound = true
      }
      if (bound) continue
      await deleteVideo(api, guid)
      deleted.push(guid)
    }
  }
  if (deleted.length) payload.logger.info({ count: deleted.length, msg: 'storage-host: removed videos no document holds' })
  return deleted
}
