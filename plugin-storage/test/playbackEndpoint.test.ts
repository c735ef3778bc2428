/**
 * `GET /api/{slug}/{id}/playback` (session contract, issue 16) and the admin previews, on a real CMS over
 * HTTP against the emulator: the collection's read access decides (403 in the plugin's error shape and no
 * URL for an anonymous reader of a collection readable by signed-in users only), 404 before the video is
 * finished and for unknown documents, then the player URLs; `thumbnailURL` (what every admin preview
 * shows) is the host's thumbnail once encoded, and an image's is its thumbnail size on the CDN.
 */
import { expect } from 'chai'
import { webhookSignatureHeaders, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import type { TusAuthResponse } from '../src/types.js'
import { multipart, saveVideo, tusAuth } from './support/api.js'
import { headOf, mp4Bytes, pngBytes } from './support/media.js'
import { closeCmsAndEmulator, startCmsOnEmulator } from './support/cmsOnEmulator.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

describe('playback endpoint and admin thumbnails', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  let docId: number
  let videoId: string

  const playback = (id: number | string, auth?: string | false) => cms.fetch(`/api/videos/${id}/playback`, { auth })
  const callback = async (status: number) => {
    const raw = JSON.stringify({ Status: status, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })
    const res = await fetch(`${cms.url}/api${WEBHOOK_PATH}`, {
      body: raw,
      headers: { 'Content-Type': 'application/json', ...webhookSignatureHeaders(raw, emu.stream.readOnlyKey) },
      method: 'POST',
    })
    expect(res.status).to.equal(200)
  }
  type Doc = { thumbnailURL: null | string; hostData: { stream: { thumbnailUrl: string; playlistUrl: string } } }
  const readDoc = async () => (await (await cms.fetch(`/api/videos/${docId}`)).json()) as Doc

  before(async () => {
    ;({ emu, cms } = await startCmsOnEmulator())
  })
  // Each test gets its own video document (not finished yet), and finishes it itself when it needs to.
  beforeEach(async () => {
    const video = mp4Bytes(16 * 1024)
    const request = { collection: 'videos', filename: 'p.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'P' }
    const auth = (await (await tusAuth(cms, request)).json()) as TusAuthResponse
    const saved = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: video.length, videoToken: auth.videoToken })
    expect(saved.status).to.equal(201)
    docId = ((await saved.json()) as { doc: { id: number } }).doc.id
    videoId = auth.videoId
  })
  after(async () => {
    await closeCmsAndEmulator(cms, emu)
  })

  it('404 and no thumbnail while the video is not finished; 404 for a document that does not exist', async () => {
    const early = await playback(docId)
    expect(early.status).to.equal(404)
    expect(await early.json()).to.have.nested.property('errors[0].message')
    expect((await readDoc()).thumbnailURL).to.equal(null)
    expect((await playback(987654)).status).to.equal(404)
  })

  it('403 in the plugin error shape, with no URL, for a reader without read access', async () => {
    await callback(3) // finished
    const refused = await playback(docId, false)
    expect(refused.status).to.equal(403)
    const body = (await refused.json()) as { errors: { message: string }[] }
    expect(body.errors[0]!.message).to.be.a('string')
    expect(JSON.stringify(body)).not.to.match(/https?:\/\//)
  })

  it('answers the player URLs of a finished video to a reader with access; thumbnailURL is the host thumbnail', async () => {
    await callback(3) // finished
    const res = await playback(docId)
    expect(res.status).to.equal(200)
    const body = (await res.json()) as { hls?: string; mp4: unknown[]; thumbnail?: string }
    const doc = await readDoc()
    expect(body.hls).to.equal(doc.hostData.stream.playlistUrl)
    expect(body.thumbnail).to.equal(doc.hostData.stream.thumbnailUrl)
    expect(body.mp4).to.be.an('array')
    expect(doc.thumbnailURL).to.equal(doc.hostData.stream.thumbnailUrl)
    expect(doc.thumbnailURL).to.match(new RegExp(`^${emu.stream.cdnUrl}/${videoId}/`))
  })

  it('gives an image on the storage host the CDN URL of its thumbnail size as thumbnailURL', async () => {
    const res = await cms.fetch('/api/media', { body: multipart(await pngBytes(200, 100), 'thumb-me.png', 'image/png', { alt: 'x' }), method: 'POST' })
    expect(res.status).to.equal(201)
    const doc = ((await res.json()) as { doc: { thumbnailURL: string; sizes: { thumbnail: { filename: string } } } }).doc
    expect(doc.thumbnailURL).to.equal(`${emu.storage.cdnUrl}/${doc.sizes.thumbnail.filename}`)
    const served = await fetch(doc.thumbnailURL)
    expect(served.status).to.equal(200)
    expect(served.headers.get('content-type')).to.match(/^image\/png/)
  })
})

describe('playback on a collection anyone may read: behaviour and OpenAPI agree (issue 24 item 6)', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms

  before(async () => {
    ;({ emu, cms } = await startCmsOnEmulator((started) => {
      const options = emulatorOptions(started)
      return startCms(
        { ...options, collections: { ...options.collections, 'public-videos': 'stream' } },
        {
          extraCollections: [
            { slug: 'public-videos', access: { read: () => true }, fields: [{ name: 'title', type: 'text' }], upload: { mimeTypes: ['video/mp4'] } },
          ],
        },
      )
    }))
  })
  after(async () => {
    await closeCmsAndEmulator(cms, emu)
  })

  it('answers an anonymous reader the player URLs, and the operation demands no credential of its own', async () => {
    const video = mp4Bytes(16 * 1024)
    const request = { collection: 'public-videos', filename: 'open.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'Open' }
    const auth = (await (await tusAuth(cms, request)).json()) as TusAuthResponse
    const form = new FormData()
    const reference = { signedReceipt: auth.signedReceipt }
    form.append(
      'file',
      JSON.stringify({ clientUploadContext: reference, filename: auth.filename, mimeType: 'video/mp4', size: video.length, uploadReference: reference }),
    )
    form.append('_payload', JSON.stringify({ hostData: { stream: { videoToken: auth.videoToken } }, title: 'Open' }))
    const saved = await cms.fetch('/api/public-videos', { body: form, method: 'POST' })
    expect(saved.status, await saved.clone().text()).to.equal(201)
    const id = ((await saved.json()) as { doc: { id: number } }).doc.id
    const raw = JSON.stringify({ Status: 3, VideoGuid: auth.videoId, VideoLibraryId: emu.stream.libraryId })
    const hook = await fetch(`${cms.url}/api${WEBHOOK_PATH}`, {
      body: raw,
      headers: { 'Content-Type': 'application/json', ...webhookSignatureHeaders(raw, emu.stream.readOnlyKey) },
      method: 'POST',
    })
    expect(hook.status).to.equal(200)

    // The collection's read access decides, as for GET /api/public-videos/{id}: anonymous readers are let in.
    const anonymous = await cms.fetch(`/api/public-videos/${id}/playback`, { auth: false })
    expect(anonymous.status).to.equal(200)
    expect(((await anonymous.json()) as { hls?: string }).hls).to.match(new RegExp(`^${emu.stream.cdnUrl}/${auth.videoId}/`))
    expect((await cms.fetch(`/api/public-videos/${id}`, { auth: false })).status).to.equal(200)

    // So the operation declares no security of its own (plugin-openapi then marks it as its reads: any
    // credential or none) and no `id` parameter (plugin-openapi types it as the collection's ids).
    const endpoints = cms.payload.collections['public-videos']!.config.endpoints as Array<{ path: string; custom?: { openapi?: object } }>
    const operation = endpoints.find((e) => e.path === '/:id/playback')!.custom!.openapi!
    expect(operation).to.not.have.property('security')
    expect(operation).to.not.have.property('parameters')
  })
})
