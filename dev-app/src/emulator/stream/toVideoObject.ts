/**
 * @module emulator/stream/toVideoObject
 * The stream API's video object (field names and types as the real API returns them).
 */
import type { VideoRecord } from './VideoStore.js'

export function toVideoObject(video: VideoRecord): Record<string, unknown> {
  return {
    videoLibraryId: video.libraryId,
    guid: video.guid,
    title: video.title,
    description: null,
    dateUploaded: video.dateUploaded.toISOString(),
    views: 0,
    isPublic: false,
    length: video.length,
    status: video.status,
    framerate: video.framerate,
    rotation: null,
    width: video.width,
    height: video.height,
    // The API sends the renditions as one comma-separated string.
    availableResolutions: video.availableResolutions.length ? video.availableResolutions.join(',') : null,
    outputCodecs: video.availableResolutions.length ? 'x264' : null,
    thumbnailCount: video.availableResolutions.length ? 1 : 0,
    encodeProgress: video.encodeProgress,
    storageSize: video.storageSize,
    captions: (video.captions ?? []).map((caption) => ({ ...caption })),
    hasMP4Fallback: video.hasMP4Fallback,
    collectionId: video.collectionId,
    thumbnailFileName: 'thumbnail.jpg',
    thumbnailBlurhash: null,
    averageWatchTime: 0,
    totalWatchTime: 0,
    category: 'unknown',
    chapters: (video.chapters ?? []).map((chapter) => ({ ...chapter })),
    moments: [],
    metaTags: [],
    transcodingMessages: [],
    jitEncodingEnabled: false,
    smartGenerateStatus: null,
    hasOriginal: video.originalPath !== undefined && video.originalKept !== false,
    originalHash: null,
    hasHighQualityPreview: false,
  }
}
