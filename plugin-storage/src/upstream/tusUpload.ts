/**
 * @module upstream/tusUpload
 * Server-side TUS upload to the streaming host, used only when a video reaches the CMS through a normal
 * multipart upload (the admin panel and custom clients use tus-auth and upload from the browser).
 * Files on disk are streamed in chunks, never read whole.
 */
import { createReadStream } from 'node:fs'

import { Upload } from 'tus-js-client'

import { tusSignature } from './signatures.js'
import { UpstreamError } from '../errors.js'

export interface TusTarget {
  tusEndpoint: string
  libraryId: number
  apiKey: string
  videoId: string
  title: string
  mimeType: string
}

const CHUNK = 8 * 1024 * 1024

/** Uploads a file (path or buffer) to an existing video record. */
export function tusUpload(target: TusTarget, input: { path: string; size: number } | { buffer: Buffer }): Promise<void> {
  const expire = Math.floor(Date.now() / 1000) + 3600
  const source = 'path' in input ? createReadStream(input.path, { highWaterMark: 1024 * 1024 }) : input.buffer
  return new Promise((resolve, reject) => {
    const upload = new Upload(source, {
      chunkSize: CHUNK,
      endpoint: target.tusEndpoint,
      headers: {
        AuthorizationExpire: String(expire),
        AuthorizationSignature: tusSignature(target.libraryId, target.apiKey, expire, target.videoId),
        LibraryId: String(target.libraryId),
        VideoId: target.videoId,
      },
      metadata: { filetype: target.mimeType, title: target.title },
      onError: (err) => {
        const status = (err as { originalResponse?: { getStatus(): number } }).originalResponse?.getStatus() ?? 0
        reject(new UpstreamError('The TUS upload of the video', status, { cause: err }))
      },
      onSuccess: () => resolve(),
      retryDelays: [0, 1000, 3000],
      uploadSize: 'path' in input ? input.size : input.buffer.length,
    })
    upload.start()
  })
}
