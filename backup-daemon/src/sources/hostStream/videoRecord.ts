/**
 * @module sources/hostStream/videoRecord
 * What the `host-stream` source writes beside each video's bytes (`<guid>/video.json`) and for the
 * whole library (`library.json`), and how it decides that a video changed since the last run.
 */
import type { StreamVideo } from './streamLibraryApi.js'

/** The file archived for a video: its original, or (where the host keeps none) its highest MP4 rendition. */
export interface ArchivedFile {
  /** Name inside `<guid>/`: `original.<ext>` or `play_<h>p.mp4`. */
  file: string
  kind: 'original' | 'rendition'
  size: number
  sha256: string
}

/** `<source>/<guid>/video.json`: everything a restore needs to recreate the video. */
export interface VideoJson extends Pick<
  StreamVideo,
  'guid' | 'title' | 'thumbnailFileName' | 'dateUploaded' | 'status' | 'length' | 'width' | 'height' | 'storageSize' | 'hasMP4Fallback'
> {
  description: string | null
  collection: { id: string; name: string | null } | null
  captions: { srclang: string; label: string; file: string }[]
  chapters: NonNullable<StreamVideo['chapters']>
  moments: NonNullable<StreamVideo['moments']>
  metaTags: NonNullable<StreamVideo['metaTags']>
  /** The API's comma-separated list, split. */
  availableResolutions: string[]
  hasOriginal: boolean | null
  /** Null when the video had nothing to download (no upload yet, or neither original nor MP4 rendition). */
  archived: ArchivedFile | null
  /** `videoFingerprint` at the time `archived` was downloaded. */
  fingerprint: string
}

/** `<source>/library.json`: the recorded list a restore drill checks the snapshot against. */
export interface LibraryJson {
  libraryId: number
  videoCount: number
  videos: { guid: string; title: string; file: string | null; kind: ArchivedFile['kind'] | null; size: number | null; sha256: string | null }[]
}

/**
 * Whether a video's downloaded file is still the one to archive. The API gives no modification time
 * for a video's bytes; the original never changes once uploaded (a video takes one upload), so what
 * changes the file to archive is the upload itself (`dateUploaded`, `hasOriginal`) and, for a video
 * archived through a rendition, its encoding (`status`, `availableResolutions`, `hasMP4Fallback`,
 * and `storageSize`, which grows with every rendition and changes on a re-encode). Title, captions,
 * chapters and collection are metadata: rewritten every run from the listing, never a download.
 */
export function videoFingerprint(video: StreamVideo): string {
  return JSON.stringify([
    video.dateUploaded,
    video.storageSize,
    video.status,
    video.hasOriginal ?? null,
    video.availableResolutions ?? '',
    video.hasMP4Fallback,
  ])
}

/** The original's extension from its first bytes (the API names no file type); `bin` when unknown. */
export function sniffVideoExtension(head: Buffer): string {
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp') return head.toString('latin1', 8, 12) === 'qt  ' ? 'mov' : 'mp4'
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return head.includes('webm', 0, 'latin1') ? 'webm' : 'mkv'
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'AVI ') return 'avi'
  return 'bin'
}

/** A caption language usable as a file name (`en`, `pt-BR`); others are skipped with a warning. */
export const safeSrclang = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/

export function toVideoJson(video: StreamVideo, collectionName: string | null, archived: ArchivedFile | null, fingerprint: string): VideoJson {
  return {
    guid: video.guid,
    title: video.title,
    description: video.description ?? null,
    collection: video.collectionId ? { id: video.collectionId, name: collectionName } : null,
    captions: (video.captions ?? [])
      .filter((c) => safeSrclang.test(c.srclang))
      .map((c) => ({ srclang: c.srclang, label: c.label, file: `captions/${c.srclang}.vtt` })),
    chapters: video.chapters ?? [],
    moments: video.moments ?? [],
    metaTags: video.metaTags ?? [],
    thumbnailFileName: video.thumbnailFileName,
    dateUploaded: video.dateUploaded,
    status: video.status,
    length: video.length,
    width: video.width,
    height: video.height,
    storageSize: video.storageSize,
    availableResolutions: video.availableResolutions ? video.availableResolutions.split(',').filter(Boolean) : [],
    hasMP4Fallback: video.hasMP4Fallback,
    hasOriginal: video.hasOriginal ?? null,
    archived,
    fingerprint,
  }
}
