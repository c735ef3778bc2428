/**
 * Storage collections against the emulator over real HTTP: an image with its sizes uploaded through the
 * CMS lands on the storage host, is served back (with Range), redirects to the token-signed CDN when
 * configured, and is deleted upstream with its document. A failing host fails the operation and leaves
 * neither a document nor an object behind.
 */
import { readFile } from 'node:fs/promises'

import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'
import nock from 'nock'

import { pngBytes } from './support/media.js'
import { multipart } from './support/api.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

describe('storage adapter (images and files on the storage host)', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms

  before(async () => {
    emu = await startEmulator({ pullZone: { tokenAuthKey: 'cdn-token-key' } })
    cms = await startCms(emulatorOptions(emu))
  })
  after(async () => {
    await cms?.close()
    await emu?.close()
  })

  it('uploads the original and every image size, serves them, and deletes them upstream', async () => {
    const png = await pngBytes()
    const res = await cms.fetch('/api/media', { body: multipart(png, 'photo.png', 'image/png', { alt: 'a photo' }), method: 'POST' })
    expect(res.status, await res.clone().text()).to.equal(201)
    const { doc } = (await res.json()) as { doc: { id: number; filename: string; sizes: { thumbnail: { filename: string } } } }
    expect(doc.filename).to.equal('photo.png')
    const originalPath = emu.storedFilePath(doc.filename)
    const thumbPath = emu.storedFilePath(doc.sizes.thumbnail.filename)
    expect(originalPath, 'original on the host').to.be.a('string')
    expect(thumbPath, 'thumbnail on the host').to.be.a('string')
    expect((await readFile(originalPath!)).equals(png)).to.equal(true)

    const served = await cms.fetch(`/api/media/file/${doc.filename}`)
    expect(served.status).to.equal(200)
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).to.equal(true)

    const ranged = await cms.fetch(`/api/media/file/${doc.filename}`, { headers: { Range: 'bytes=0-9' } })
    expect(ranged.status).to.equal(206)
    expect(ranged.headers.get('content-range')).to.equal(`bytes 0-9/${png.length}`)
    expect(Buffer.from(await ranged.arrayBuffer()).equals(png.subarray(0, 10))).to.equal(true)

    const del = await cms.fetch(`/api/media/${doc.id}`, { method: 'DELETE' })
    expect(del.status).to.equal(200)
    expect(emu.storedFilePath(doc.filename), 'original gone').to.equal(undefined)
    expect(emu.storedFilePath(doc.sizes.thumbnail.filename), 'thumbnail gone').to.equal(undefined)
  })

  it('streams a file Payload kept on disk (useTempFiles) to the host byte for byte', async () => {
    const temp = await startCms(emulatorOptions(emu), { useTempFiles: true })
    try {
      const text = Buffer.from('line of text for the storage host\n'.repeat(100_000))
      const res = await temp.fetch('/api/media', { body: multipart(text, 'big notes.txt', 'text/plain'), method: 'POST' })
      expect(res.status, await res.clone().text()).to.equal(201)
      const { doc } = (await res.json()) as { doc: { filename: string } }
      expect((await readFile(emu.storedFilePath(doc.filename)!)).equals(text)).to.equal(true)
    } finally {
      await temp.close()
    }
  })

  it('fails the create with a clear error and leaves nothing behind when the host refuses a write', async () => {
    const png = await pngBytes(64, 64)
    const before = await cms.payload.count({ collection: 'media' })
    // Only the thumbnail PUT fails; the original succeeds and must be removed again.
    nock(emu.url, { allowUnmocked: true })
      .put(/-40x40/)
      .reply(500, 'boom')
      .persist()
    nock.enableNetConnect()
    try {
      const res = await cms.fetch('/api/media', { body: multipart(png, 'broken.png', 'image/png'), method: 'POST' })
      const body = (await res.json()) as { errors: Array<{ message: string }> }
      expect(res.status).to.be.oneOf([500, 502])
      expect(body.errors[0]!.message).to.match(/storage host failed.*HTTP 500/)
    } finally {
      nock.cleanAll()
    }
    expect((await cms.payload.count({ collection: 'media' })).totalDocs).to.equal(before.totalDocs)
    expect(emu.storedFilePath('broken.png'), 'no orphan original').to.equal(undefined)
  })
})
