/**
 * @module translations/en
 * English strings of the plugin's admin components (namespace `storageHost`, see translations/index.ts).
 */
export const en = {
  copied: 'Copied',
  copy: 'Copy',
  duration: 'Duration',
  encodeFailed: 'The streaming host could not encode this video.',
  encoding: 'Encoding',
  hostData: 'Streaming host',
  links: 'Links',
  noPlaybackUrl: 'No playback URL (you may not have access to this video).',
  player: 'Video',
  playerUnavailable: 'The video cannot be played here.',
  playlist: 'HLS playlist',
  progress: 'Progress',
  quality: 'Quality',
  resolutions: 'Resolutions',
  retryHint: 'Pick the file again (or another one), upload it, then save the document.',
  retryUpload: 'Retry the upload',
  size: 'Size',
  status: 'Status',
  'status.encoding': 'Encoding',
  'status.failed': 'Encoding failed',
  'status.finished': 'Ready',
  'status.playable': 'Playable',
  'status.processing': 'Processing',
  'status.queued': 'Queued',
  'status.uploadFailed': 'Upload failed',
  'status.uploadStarted': 'Uploading',
  'status.uploaded': 'Uploaded',
  'status.uploading': 'Waiting for the upload',
  thumbnail: 'Thumbnail',
  videoId: 'Video id',
  waitingForThumbnail: 'The thumbnail appears when encoding is done.',
}

/** The keys every language must translate. */
export type StorageHostTranslations = Record<keyof typeof en, string>
