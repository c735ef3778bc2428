/**
 * @module restore/remapStreamVideos
 * The CMS-aware step of bringing a site back from a backup. A restored video library holds the same
 * videos under new GUIDs (a library hands out the GUID when a video is created), while the restored
 * database still points at the old ones: this rewrites `hostData.stream` of every document of the
 * stream collections whose video is in the old → new map (the backup daemon's `restore --into-library
 * --guid-map`) to the new video of the library this CMS is configured with — video id, library id,
 * playlist and thumbnail URLs, MP4 rendition URLs — and, when the host answers, the new video's
 * status and resolutions (it may still be encoding; the completion callback finds it by its new id).
 * Through Payload's local API, so it works on every database adapter; updates carry the plugin's
 * internal-update context, as the completion callback's do (no video token is needed).
 */
import type { Payload } from 'payload'

import { INTERNAL_UPDATE_CONTEXT } from '../constants.js'
import type { ResolvedOptions } from '../options/resolveOptions.js'
import { mp4Resolutions, readVideo, staticStreamData, videoObjectData } from '../stream/refreshStreamData.js'
import { statusFromVideoObject } from '../stream/statusMachine.js'
import { renditionFile } from '../stream/streamUrls.js'
import type { StreamHostData } from '../types.js'

export interface RemapStreamVideosOptions {
  /** Old GUID → new GUID (the `ids` of a daemon `--guid-map` file's source). */
  guidMap: Record<string, string>
  /** Ask the host for each new video's status and renditions. @default true */
  readFromHost?: boolean
}

export interface RemappedDocument {
  collection: string
  id: number | string
  from: string
  to: string
}

export interface RemapStreamVideosResult {
  /** Every document rewritten. */
  updated: RemappedDocument[]
  /** Old GUIDs of the map that no document holds (a video uploaded but never saved, or deleted since). */
  unused: string[]
}

/** Rewrites the documents of the stream collections to the new videos; answers what it changed. */
export async function remapStreamVideos(payload: Payload, options: ResolvedOptions, remap: RemapStreamVideosOptions): Promise<RemapStreamVideosResult> {
  const targets = [...options.collections.values()].filter((c) => c.stream)
  if (targets.length === 0) throw new Error('remapStreamVideos: the plugin has no stream collection, so no collection holds videos')
  const oldGuids = Object.keys(remap.guidMap)
  const result: RemapStreamVideosResult = { updated: [], unused: [] }
  if (oldGuids.length === 0) return result
  const used = new Set<string>()
  for (const { slug, stream } of targets as Array<{ slug: string; stream: NonNullable<(typeof targets)[number]['stream']> }>) {
    const found = await payload.find({
      collection: slug,
      depth: 0,
      overrideAccess: true,
      pagination: false,
      where: { 'hostData.stream.videoId': { in: oldGuids } },
    })
    for (const doc of found.docs as Array<{ id: number | string; hostData?: { stream?: StreamHostData } }>) {
      const current = doc.hostData?.stream ?? {}
      const from = current.videoId!
      const to = remap.guidMap[from]!
      used.add(from)
      const next: StreamHostData = { ...current, ...staticStreamData(stream, to), videoToken: null }
      // The renditions' file names (`play_720p.mp4`) stay; read, they are URLs under the new video.
      next.resolutions = (current.resolutions ?? []).map((r) => ({ resolution: r.resolution, url: renditionFile(r.url) }))
      if (remap.readFromHost !== false) {
        const video = await readVideo(stream, to)
        if (video) {
          Object.assign(next, videoObjectData(video))
          next.status = statusFromVideoObject(video.status)
          if (next.status === 'finished') {
            next.encodeProgress = 100
            if (stream.mp4Fallback) next.resolutions = await mp4Resolutions(stream, to).catch(() => next.resolutions)
          }
        }
      }
      await payload.update({
        collection: slug,
        context: { [INTERNAL_UPDATE_CONTEXT]: true },
        data: { hostData: { stream: next } },
        depth: 0,
        id: doc.id,
        overrideAccess: true,
      })
      result.updated.push({ collection: slug, id: doc.id, from, to })
    }
  }
  result.unused = oldGuids.filter((guid) => !used.has(guid))
  payload.logger.info({ count: result.updated.length, msg: 'storage-host: documents moved to their restored videos' })
  return result
}
