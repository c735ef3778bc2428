/**
 * @module test/support/finishedVideo
 * The browser flow up to a finished video, in Node: tus-auth, the document saved by receipt + token, the
 * TUS upload, the emulator's encoding and its callbacks.
 */
import { expect } from 'chai'
import type { RunningEmulator } from 'dev-app/emulator'

import type { TusAuthResponse } from '../../src/types.js'
import { saveVideo, tusAuth } from './api.js'
import { headOf, mp4Bytes } from './media.js'
import type { RunningCms } from './startCms.js'
import { startTus } from './tus.js'

export interface Uploaded {
  docId: number
  videoId: string
  thumbnailTime?: number
}

/** The browser flow up to a finished video: tus-auth, save (receipt + token), TUS upload, encoding callbacks. */
export async function uploadFinishedVideo(cms: RunningCms, emu: RunningEmulator, title: string): Promise<Uploaded> {
  const bytes = mp4Bytes(64 * 1024)
  const res = await tusAuth(cms, { collection: 'videos', filename: `${title}.mp4`, filesize: bytes.length, filetype: 'video/mp4', head: headOf(bytes), title })
  expect(res.status, await res.clone().text()).to.equal(200)
  const auth = (await res.json()) as TusAuthResponse
  const saved = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: bytes.length, title, videoToken: auth.videoToken })
  expect(saved.status, await saved.clone().text()).to.equal(201)
  const docId = ((await saved.json()) as { doc: { id: number } }).doc.id
  await startTus(emu.stream.tusEndpoint, auth, bytes, { title }).done
  await emu.whenEncoded(auth.videoId)
  return { docId, thumbnailTime: auth.thumbnailTime, videoId: auth.videoId }
}
