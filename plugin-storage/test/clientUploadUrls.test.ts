/**
 * Issue 24 (items 1, 2) and issue 28 (item 12), against the emulator: every URL of an image document
 * (`url`, `thumbnailURL`, `sizes.*.url`) reaches the real object, for a file sent through the CMS (no
 * object key, as the dev-app's seed) and for a browser-direct client upload (its own `_objectKey`
 * folder); the internal `_objectKey` field is out of the admin's list columns and filters; a document
 * saved with a receipt whose object is not on the host answers 400 at once, naming the upload.
 */
import { createServer, type Server, type Socket } from 'node:net'

import { expect } from 'chai'
import { type RunningEmulator } from 'dev-app/emulator'
import sharp from 'sharp'

import { STORAGE_UPLOAD_PATH } from '../src/constants.js'
import { multipart } from './support/api.js'
import { pngBytes } from './support/media.js'
import { closeCmsAndEmulator, startCmsOnEmulator } from './support/cmsOnEmulator.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

interface Signed {
  url: string
  headers: Record<string, string>
  filename: string
  clientUploadContext: { _objectKey: string; prefix: string; signedReceipt: string }
}
interface ImageDoc {
  id: number
  filename: string
  url: string
  thumbnailURL: string | null
  _objectKey?: string | null
  sizes: { thumbnail: { filename: string; url: string } }
}

const sign = (cms: RunningCms, filename: string, size: number, mimeType = 'image/png') =>
  cms.fetch(`/api${STORAGE_UPLOAD_PATH}`, {
    body: JSON.stringify({ collectionSlug: 'media', filename, mimeType, size }),
    headers: { 'Content-Type': 'application/json' },
    method: 'POST',
  })

/** The create request of a client upload: the receipt, no bytes. */
const createByReceipt = (cms: RunningCms, signed: Signed, size: number, init: RequestInit = {}) => {
  const form = new FormData()
  form.append('file', JSON.stringify({ clientUploadContext: signed.clientUploadContext, filename: signed.filename, mimeType: 'image/png', size }))
  form.append('_payload', JSON.stringify({ alt: 'by receipt' }))
  return cms.fetch('/api/media', { ...init, body: form, method: 'POST' })
}

/** Fetches a document URL (relative ones from the CMS) and answers the image's width, or the failure. */
async function imageAt(cms: RunningCms, url: string): Promise<{ status: number; width?: number }> {
  const res = url.startsWith('http') ? await fetch(url) : await cms.fetch(url)
  if (res.status !== 200) return { status: res.status }
  const { width } = await sharp(Buffer.from(await res.arrayBuffer())).metadata()
  return { status: 200, width }
}

async function expectEveryUrlLoads(cms: RunningCms, doc: ImageDoc, width: number): Promise<void> {
  expect(doc.thumbnailURL, 'thumbnailURL').to.be.a('string')
  expect(await imageAt(cms, doc.url), `url ${doc.url}`).to.deep.equal({ status: 200, width })
  expect(await imageAt(cms, doc.thumbnailURL!), `thumbnailURL ${doc.thumbnailURL}`).to.deep.equal({ status: 200, width: 40 })
  expect(await imageAt(cms, doc.sizes.thumbnail.url), `sizes.thumbnail.url ${doc.sizes.thumbnail.url}`).to.deep.equal({ status: 200, width: 40 })
}

for (const publicUrls of [false, true]) {
  describe(`image URLs point at the stored objects (${publicUrls ? 'public CDN URLs' : 'CMS file route'})`, function () {
    this.timeout(60_000)
    let emu: RunningEmulator
    let cms: RunningCms

    before(async () => {
      ;({ emu, cms } = await startCmsOnEmulator((started) => {
        const options = emulatorOptions(started)
        return startCms({ ...options, storage: { ...options.storage!, publicUrls } })
      }))
    })
    after(async () => {
      await closeCmsAndEmulator(cms, emu)
    })

    it('a file sent through the CMS (no object key): url, thumbnailURL and sizes load', async () => {
      const png = await pngBytes(90, 60)
      const res = await cms.fetch('/api/media', { body: multipart(png, 'through-cms.png', 'image/png', { alt: 'form' }), method: 'POST' })
      expect(res.status, await res.clone().text()).to.equal(201)
      const { doc } = (await res.json()) as { doc: ImageDoc }
      expect(doc._objectKey ?? null).to.equal(null)
      await expectEveryUrlLoads(cms, doc, 90)
    })

    it('a client upload (its own object-key folder): url, thumbnailURL and sizes load, in the list too', async () => {
      const png = await pngBytes(80, 50)
      const signed = (await (await sign(cms, 'photo.png', png.length)).json()) as Signed
      expect((await fetch(signed.url, { body: new Uint8Array(png), headers: signed.headers, method: 'PUT' })).status).to.equal(200)
      const res = await createByReceipt(cms, signed, png.length)
      expect(res.status, await res.clone().text()).to.equal(201)
      const { doc } = (await res.json()) as { doc: ImageDoc }
      expect(doc._objectKey).to.equal(signed.clientUploadContext._objectKey)
      expect(doc.thumbnailURL).to.include(`/${doc._objectKey}/`)
      await expectEveryUrlLoads(cms, doc, 80)
      const listed = (await (await cms.fetch(`/api/media?where[id][equals]=${doc.id}`)).json()) as { docs: ImageDoc[] }
      await expectEveryUrlLoads(cms, listed.docs[0]!, 80)
    })
  })
}

describe('internal storage fields in the admin', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  before(async () => {
    ;({ emu, cms } = await startCmsOnEmulator())
  })
  after(async () => {
    await closeCmsAndEmulator(cms, emu)
  })

  it('_objectKey is no list column, no filter and not bulk-editable (Payload 3.90 lists admin.hidden fields)', () => {
    for (const slug of ['media', 'videos']) {
      const field = cms.payload.collections[slug]!.config.fields.find((f) => 'name' in f && f.name === '_objectKey')
      expect(field, slug).to.be.an('object')
      expect(field!.admin, slug).to.include({ disableBulkEdit: true, disableListColumn: true, disableListFilter: true, hidden: true })
    }
  })
})

describe('a receipt whose object is not on the host', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  let silent: Server
  const sockets: Socket[] = []

  before(async () => {
    ;({ emu, cms } = await startCmsOnEmulator())
  })
  after(async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()))
    await closeCmsAndEmulator(cms, emu)
  })

  it('never uploaded, or deleted: 400 at once naming the upload; nothing is created', async () => {
    const png = await pngBytes(30, 30)
    const signed = (await (await sign(cms, 'never-sent.png', png.length)).json()) as Signed
    const before = (await cms.payload.count({ collection: 'media' })).totalDocs
    const started = Date.now()
    const res = await createByReceipt(cms, signed, png.length, { signal: AbortSignal.timeout(15_000) })
    const body = (await res.json()) as { errors: Array<{ message: string }> }
    expect(res.status, JSON.stringify(body)).to.equal(400)
    expect(Date.now() - started).to.be.below(5_000)
    expect(body.errors[0]!.message).to.match(/"never-sent\.png" is not on the storage host/)
    expect((await cms.payload.count({ collection: 'media' })).totalDocs).to.equal(before)

    // Uploaded, then deleted on the host before the save.
    const gone = (await (await sign(cms, 'deleted.png', png.length)).json()) as Signed
    expect((await fetch(gone.url, { body: new Uint8Array(png), headers: gone.headers, method: 'PUT' })).status).to.equal(200)
    const key = `${gone.clientUploadContext._objectKey}/${gone.filename}`
    const del = await fetch(`${emu.storage.endpoint}/${emu.storage.zoneName}/${key}`, { headers: { AccessKey: emu.storage.accessKey }, method: 'DELETE' })
    expect(del.status).to.be.within(200, 299)
    const again = await createByReceipt(cms, gone, png.length, { signal: AbortSignal.timeout(15_000) })
    const againBody = (await again.json()) as { errors: Array<{ message: string }> }
    expect(again.status, JSON.stringify(againBody)).to.equal(400)
    expect(againBody.errors[0]!.message).to.match(/"deleted\.png" is not on the storage host/)
  })

  it('a storage host that never answers: 400 within the read-back timeout, not a hang', async () => {
    // A real TCP server that accepts connections and never answers: the host's API hanging.
    silent = createServer((socket) => {
      sockets.push(socket)
      socket.on('error', () => undefined)
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const port = (silent.address() as { port: number }).port
    const options = emulatorOptions(emu)
    const hanging = await startCms({ ...options, storage: { ...options.storage!, endpoint: `http://127.0.0.1:${port}` } })
    try {
      const png = await pngBytes(20, 20)
      const signed = (await (await sign(hanging, 'slow-host.png', png.length)).json()) as Signed
      expect((await fetch(signed.url, { body: new Uint8Array(png), headers: signed.headers, method: 'PUT' })).status).to.equal(200)
      const started = Date.now()
      const res = await createByReceipt(hanging, signed, png.length, { signal: AbortSignal.timeout(25_000) })
      const body = (await res.json()) as { errors: Array<{ message: string }> }
      expect(res.status, JSON.stringify(body)).to.equal(400)
      expect(Date.now() - started).to.be.below(15_000)
      expect(body.errors[0]!.message).to.match(/"slow-host\.png" could not be read from the storage host in time/)
    } finally {
      await hanging.close()
    }
  })
})
