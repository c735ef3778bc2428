/**
 * @module emulator/stream/resolutionsOf
 * `GET /library/{id}/videos/{guid}/resolutions`: the data part, shaped like the real API's.
 */
import { VideoStatus } from './statuses.js'
import type { VideoRecord } from './VideoStore.js'

/** `GET .../resolutions` data, shaped like the real API's. */
export function resolutionsOf(video: VideoRecord): Record<string, unknown> {
  const finished = video.status === VideoStatus.Finished
  return {
    videoId: video.guid,
    videoLibraryId: video.libraryId,
    availableResolutions: video.availableResolutions,
    configuredResolutions: video.availableResolutions,
    playlistResolutions: video.availableResolutions.map((resolution) => ({ resolution, path: `${resolution}/video.m3u8` })),
    storageResolutions: video.availableResolutions.map((resolution) => ({ resolution, path: `${resolution}/` })),
    mp4Resolutions: video.hasMP4Fallback ? video.mp4Heights.map((height) => ({ resolution: `${height}p`, path: `play_${height}p.mp4` })) : [],
    storageObjects: [],
    oldResolutions: [],
    hasBothOldAndNewResolutionFormat: false,
    hasOriginal: video.originalPath !== undefined && video.originalKept !== false,
    isFinished: finished,
  }
}
