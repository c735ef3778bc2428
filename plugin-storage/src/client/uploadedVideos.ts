'use client'
/**
 * @module client/uploadedVideos
 * Hand-over between the TUS field (which uploads the video before the document is saved) and the
 * stream upload handler (which Payload's form calls on save): the receipt of each uploaded File.
 */

export interface UploadedVideo {
  filename: string
  signedReceipt: string
  videoId: string
}

/** Keyed by the File object the editor picked, so a new pick never reuses an old receipt. */
export const uploadedVideos = new WeakMap<File, UploadedVideo>()
