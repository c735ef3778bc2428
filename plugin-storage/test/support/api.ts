/**
 * @module test/support/api
 * The two calls of the browser flow for videos: tus-auth, and saving the document by receipt + token.
 */
import { TUS_AUTH_PATH } from '../../src/constants.js'
import type { RunningCms } from './startCms.js'

export async function tusAuth(cms: RunningCms, body: Record<string, unknown>, auth?: string): Promise<Response> {
  return cms.fetch(`/api${TUS_AUTH_PATH}`, { auth, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' }, method: 'POST' })
}

/** Creates the document the way the admin UI does after a TUS upload: the file by receipt, no bytes. */
export function saveVideo(cms: RunningCms, a: { filename: string; size: number; signedReceipt?: string; videoToken?: string; title?: string }, auth?: string): Promise<Response> {
  const form = new FormData()
  form.append('file', JSON.stringify({ clientUploadContext: { signedReceipt: a.signedReceipt }, filename: a.filename, mimeType: 'video/mp4', size: a.size }))
  form.append('_payload', JSON.stringify({ hostData: { stream: { videoToken: a.videoToken } }, title: a.title ?? 'A video' }))
  return cms.fetch('/api/videos', { auth, body: form, method: 'POST' })
}

