/**
 * The admin's "retry the upload" after a failed encode: a document whose video failed may be saved with a
 * new video (token + receipt, as the TUS field and the upload handler send them); a document whose video
 * did not fail keeps refusing another one.
 */
import { expect } from 'chai'
import { webhookSignatureHeaders, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import type { TusAuthResponse } from '../src/types.js'
import { saveVideo, tusAuth } from './support/api.js'
import { headOf, mp4Bytes } from './support/media.js'
import { closeCmsAndEmulator, startCmsOnEmulator } from './support/cmsOnEmulator.js'
import type { RunningCms } from './support/startCms.js'

describe('replacing a failed video', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  const video = mp4Bytes(16 * 1024)

  const authorize = async (name: string) => {
    const request = { collection: 'videos', filename: name, filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: name }
    return (await (await tusAuth(cms, request)).json()) as TusAuthResponse
  }
  const callback = async (videoId: string, status: number) => {
    const raw = JSON.stringify({ Status: status, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })
    const headers = { 'Content-Type': 'application/json', ...webhookSignatureHeaders(raw, emu.stream.readOnlyKey) }
    expect((await fetch(`${cms.url}/api${WEBHOOK_PATH}`, { body: raw, headers, method: 'POST' })).status).to.equal(200)
  }
  /** Saves an existing document with a new upload, as the admin does after "Retry the upload". */
  const replace = (id: number, auth: TusAuthResponse) => {
    const form = new FormData()
    const reference = { signedReceipt: auth.signedReceipt }
    const file = { clientUploadContext: reference, filename: auth.filename, mimeType: 'video/mp4', size: video.length, uploadReference: reference }
    form.append('file', JSON.stringify(file))
    form.append('_payload', JSON.stringify({ hostData: { stream: { videoToken: auth.videoToken } } }))
    return cms.fetch(`/api/videos/${id}`, { body: form, method: 'PATCH' })
  }
  const create = async (name: string) => {
    const auth = await authorize(name)
    const saved = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: video.length, videoToken: auth.videoToken })
    expect(saved.status).to.equal(201)
    return { id: ((await saved.json()) as { doc: { id: number } }).doc.id, videoId: auth.videoId }
  }
  type Doc = { hostData: { stream: { videoId: string; status: string } } }
  const streamOf = async (id: number) => ((await (await cms.fetch(`/api/videos/${id}`)).json()) as Doc).hostData.stream

  before(async () => {
    ;({ emu, cms } = await startCmsOnEmulator())
  })
  after(async () => {
    await closeCmsAndEmulator(cms, emu)
  })

  it('binds a new video to a document whose encode failed', async () => {
    const doc = await create('fails.mp4')
    await callback(doc.videoId, 5) // failed
    expect((await streamOf(doc.id)).status).to.equal('failed')
    const again = await authorize('again.mp4')
    const res = await replace(doc.id, again)
    expect(res.status, await res.clone().text()).to.equal(200)
    const stream = await streamOf(doc.id)
    expect(stream.videoId).to.equal(again.videoId)
    expect(stream.status).to.not.equal('failed')
  })

  it('still refuses another video for a document whose video did not fail; nothing changes', async () => {
    const doc = await create('fine.mp4')
    await callback(doc.videoId, 3) // finished
    const other = await authorize('other.mp4')
    const res = await replace(doc.id, other)
    expect(res.status).to.equal(400)
    expect(await res.text()).to.contain('already bound to another video')
    const stream = await streamOf(doc.id)
    expect(stream.videoId).to.equal(doc.videoId)
    expect(stream.status).to.equal('finished')
  })
})
