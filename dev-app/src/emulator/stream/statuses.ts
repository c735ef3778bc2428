/**
 * @module emulator/stream/statuses
 * The two status enums of the streaming host. They differ: the video object's `status` and the
 * webhook's `Status` use different numbers for the same stages (e.g. Finished is 4 on the video, 3
 * in a callback).
 */

/** The video object's `status`. */
export const VideoStatus = {
  Created: 0,
  Uploaded: 1,
  Processing: 2,
  Transcoding: 3,
  Finished: 4,
  Error: 5,
  UploadFailed: 6,
  JitSegmenting: 7,
  JitPlaylistsCreated: 8,
} as const
export type VideoStatus = (typeof VideoStatus)[keyof typeof VideoStatus]

/** The webhook body's `Status`. */
export const WebhookStatus = {
  Queued: 0,
  Processing: 1,
  Encoding: 2,
  Finished: 3,
  ResolutionFinished: 4,
  Failed: 5,
  PresignedUploadStarted: 6,
  PresignedUploadFinished: 7,
  PresignedUploadFailed: 8,
  CaptionsGenerated: 9,
  TitleOrDescriptionGenerated: 10,
} as const
export type WebhookStatus = (typeof WebhookStatus)[keyof typeof WebhookStatus]
