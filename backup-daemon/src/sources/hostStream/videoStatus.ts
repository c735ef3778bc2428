/**
 * @module sources/hostStream/videoStatus
 * The video object's `status` values this source acts on (the API's enum: 0 Created, 1 Uploaded,
 * 2 Processing, 3 Transcoding, 4 Finished, 5 Error, 6 UploadFailed, ...).
 */
/** Created through the API, no bytes uploaded yet. */
export const VIDEO_STATUS_CREATED = 0
/** Encoded; a restored video is usable once it reaches this. */
export const VIDEO_STATUS_FINISHED = 4
