/**
 * @module test/support/tus
 * Drives tus-js-client in Node exactly like the admin UI does in the browser: tus-auth first, then the
 * upload straight to the host's TUS endpoint with the returned signature.
 */
import { Upload } from 'tus-js-client'

import type { TusAuthResponse } from '../../src/types.js'

export interface TusRun {
  /** Resolves with the upload URL when done. */
  done: Promise<string>
  upload: Upload
}

/** Starts an upload; `onProgress` may abort it. `uploadUrl` resumes an earlier one. */
export function startTus(
  endpoint: string,
  auth: TusAuthResponse,
  bytes: Buffer,
  opts: { chunkSize?: number; uploadUrl?: string; onProgress?: (sent: number, total: number, upload: Upload) => void; title?: string } = {},
): TusRun {
  let upload!: Upload
  const done = new Promise<string>((resolve, reject) => {
    upload = new Upload(bytes, {
      chunkSize: opts.chunkSize ?? 64 * 1024,
      endpoint,
      headers: {
        AuthorizationExpire: String(auth.authorizationExpire),
        AuthorizationSignature: auth.authorizationSignature!,
        LibraryId: String(auth.libraryId),
        VideoId: auth.videoId,
      },
      metadata: { filetype: 'video/mp4', title: opts.title ?? 'A video' },
      onError: reject,
      onProgress: (sent, total) => opts.onProgress?.(sent, total, upload),
      onSuccess: () => resolve(upload.url!),
      retryDelays: [0, 200, 500],
      uploadUrl: opts.uploadUrl,
    })
    upload.start()
  })
  return { done, upload }
}
