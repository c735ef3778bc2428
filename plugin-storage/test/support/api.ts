/**
 * @module test/support/api
 * The two calls of the browser flow for videos (tus-auth, and saving the document by receipt + token), and
 * the multipart body of a file sent through the CMS itself.
 */
import { TUS_AUTH_PATH } from '../../src/constants.js'
import { headOf } from './media.js'
import type { RunningCms } from './startCms.js'

/** A valid tus-auth request for the MP4 `video` (`clip.mp4` into `videos`): the one the error tests vary. */
export function validTusRequest(video: Buffer) {
  return { collection: 'videos', filename: 'clip.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'Clip' }
}

export async function tusAuth(cms: Pick<RunningCms, 'fetch'>, body: Record<string, unknown>, auth?: string): Promise<Response> {
  return cms.fetch(`/api${TUS_AUTH_PATH}`, { auth, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' }, method: 'POST' })
}

/**
 * Creates the document the way the admin UI does after a TUS upload: the file by receipt, no bytes.
 * The receipt goes under both names, as a client serving either generation sends it: 3.x reads
 * `clientUploadContext`, 4.x `uploadReference`, and each ignores the other.
 */
export function saveVideo(
  cms: Pick<RunningCms, 'fetch'>,
  a: { filename: string; size: number; signedReceipt?: string; videoToken?: string; title?: string },
  auth?: string,
): Promise<Response> {
  const form = new FormData()
  const reference = { signedReceipt: a.signedReceipt }
  form.append('file', JSON.stringify({ clientUploadContext: reference, filename: a.filename, mimeType: 'video/mp4', size: a.size, uploadReference: reference }))
  form.append('_payload', JSON.stringify({ hostData: { stream: { videoToken: a.videoToken } }, title: a.title ?? 'A video' }))
  return cms.fetch('/api/videos', { auth, body: form, method: 'POST' })
}

/** A create/update body with the file's bytes (`file`) and the other fields as JSON (`_payload`). */
export function multipart(file: Buffer, filename: string, type: string, data: Record<string, unknown> = {}): FormData {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(file)], { type }), filename)
  form.append('_payload', JSON.stringify(data))
  return form
}
