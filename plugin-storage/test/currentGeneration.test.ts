/**
 * The "current generation" on a real Payload 4 build (Node 24, SQLite), installed from the npm registry
 * into a throwaway project (support/payload4Project.ts), with the plugin's sources from this checkout,
 * against the emulator over real HTTP:
 * - client uploads through the core's `POST /api/upload-instructions` and the adapter's
 *   `uploadInstructions` hook: presigned PUT to the host, the document created by `uploadReference`
 *   (sizes generated from the bytes read back), served back identical, deleted with its sizes;
 * - forged, tampered and foreign references refused with nothing saved; access narrowed by
 *   `clientUploads.access`; SVG and oversize refused;
 * - `stream.tus.access` replacing tus-auth's default check; a video through TUS saved by receipt and
 *   token, followed to `finished` by the host's signed callbacks;
 * - files and videos sent through the CMS itself still stored (the adapter computes keys the 4.x core
 *   no longer hands over), and a failed write still leaves neither document nor object behind.
 *
 * Runs once (scripts/run-tests.mjs): the Payload 4 CMS it tests runs on the project's own Node 24 in either
 * pass of .ci/run, so the second pass would repeat it.
 */
import { readFile, stat } from 'node:fs/promises'
import { createServer, request as httpRequest, type Server } from 'node:http'

import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import type { TusAuthResponse } from '../src/types.js'
import { multipart, saveVideo, tusAuth } from './support/api.js'
import { headOf, mp4Bytes, pngBytes } from './support/media.js'
import { PAYLOAD4_VERSION, preparePayload4Project, startPayload4Cms, type Payload4Project, type RemoteCms } from './support/payload4Project.js'
import { startTus } from './support/tus.js'
import { waitFor } from './support/waitFor.js'

interface Instructions {
  type: 'http'
  file: { filename: string; mimeType: string; size: number; uploadReference: { prefix: string; signedReceipt: string } }
  request: { method: 'PUT'; url: string; headers: Record<string, string> }
}

interface MediaDoc {
  id: number
  filename: string
  prefix: string
  url: string
  width: number
  height: number
  sizes: { thumbnail: { filename: string; width: number; height: number } }
}

interface VideoDoc {
  id: number
  filename: string
  hostData: { stream: { videoId: string; status: string; playlistUrl: string; resolutions?: Array<{ resolution: string; url: string }> } }
}

const json = (body: unknown): RequestInit => ({ body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' }, method: 'POST' })

describe('current generation on Payload 4 (upload-instructions, stream.tus.access)', function () {
  // The first run installs Payload 4 + Node 24 from the registry.
  this.timeout(300_000)
  let project: Payload4Project
  let emu: RunningEmulator
  let cms: RemoteCms
  let narrowed: RemoteCms

  const instructions = (target: RemoteCms, body: Record<string, unknown>, auth?: string | false) =>
    target.fetch('/api/upload-instructions', { ...json(body), auth })
  const createByReference = (target: RemoteCms, i: Instructions, reference: unknown = i.file.uploadReference, auth?: string) => {
    const form = new FormData()
    form.append('file', JSON.stringify({ filename: i.file.filename, mimeType: i.file.mimeType, size: i.file.size, uploadReference: reference }))
    form.append('_payload', JSON.stringify({ alt: 'direct' }))
    return target.fetch('/api/media', { auth, body: form, method: 'POST' })
  }
  const mediaCount = async (target: RemoteCms) => ((await (await target.fetch('/api/media/count')).json()) as { totalDocs: number }).totalDocs
  /** Signs, PUTs the bytes to the host, answers the instructions. */
  const uploadDirect = async (target: RemoteCms, bytes: Buffer, filename: string, mimeType: string, auth?: string) => {
    const res = await instructions(target, { collectionSlug: 'media', filename, filesize: bytes.length, mimeType }, auth)
    expect(res.status, await res.clone().text()).to.equal(200)
    const i = (await res.json()) as Instructions
    const put = await fetch(i.request.url, { body: new Uint8Array(bytes), headers: i.request.headers, method: i.request.method })
    expect(put.status, await put.clone().text()).to.equal(200)
    return i
  }

  before(async function () {
    project = await preparePayload4Project((line) => console.log(`      ${line}`))
    emu = await startEmulator({ stream: { encodingStepMs: 50 } })
    ;[cms, narrowed] = await Promise.all([
      startPayload4Cms(project, emu, { fileSizeLimit: 5 * 1024 * 1024, scenario: 'default' }),
      startPayload4Cms(project, emu, { scenario: 'narrowed' }),
    ])
    emu.setWebhookUrl(`${cms.url}/api${WEBHOOK_PATH}`)
  })
  after(async () => {
    await Promise.all([cms?.close(), narrowed?.close()])
    await emu?.close()
    project?.release()
  })

  it('runs a real Payload 4 build on Node 24, which serves upload-instructions', async () => {
    expect(cms.payloadVersion).to.equal(PAYLOAD4_VERSION)
    expect(cms.storageAdapters, 'the plugin is under the top-level storage key').to.deep.equal(['storage-host'])
    expect(Number(cms.nodeVersion.slice(1).split('.')[0])).to.be.at.least(24)
    const anonymous = await instructions(cms, { collectionSlug: 'media', filename: 'a.png', filesize: 10, mimeType: 'image/png' }, false)
    expect(anonymous.status, 'the endpoint exists and checks access').to.equal(403)
    // The plugin's earlier-generation endpoint is still there for custom clients.
    const earlier = await cms.fetch('/api/storage-host/storage/upload', json({ collectionSlug: 'media', filename: 'a.png', mimeType: 'image/png', size: 10 }))
    expect(earlier.status).to.equal(200)
    // A folder named by the caller never leads out of the collection's (none here: issue 39 #7).
    const elsewhere = await instructions(cms, {
      collectionSlug: 'media',
      docPrefix: 'private-backups/cms',
      filename: 'a.png',
      filesize: 10,
      mimeType: 'image/png',
    })
    expect(elsewhere.status, await elsewhere.clone().text()).to.equal(200)
    const signed = (await elsewhere.json()) as Instructions
    expect(decodeURIComponent(new URL(signed.request.url).pathname)).to.equal(`/s3/${emu.storage.zoneName}/${signed.file.uploadReference.prefix}/a.png`)
    expect(signed.file.uploadReference.prefix).not.to.include('private-backups')
  })

  it('signs a PUT through upload-instructions; the document is created by reference with sizes; served back; deleted', async () => {
    const png = await pngBytes(90, 60)
    const res = await instructions(cms, { collectionSlug: 'media', filename: 'direct photo.png', filesize: png.length, mimeType: 'image/png' })
    expect(res.status, await res.clone().text()).to.equal(200)
    const i = (await res.json()) as Instructions
    expect(i.type).to.equal('http')
    expect(i.request.method).to.equal('PUT')
    expect(i.request.url.startsWith(`${emu.storage.s3Endpoint}/${emu.storage.zoneName}/`)).to.equal(true)
    expect(i.file.filename, "the core's sanitized name").to.match(/^direct.photo\.png$/)
    expect(i.file.uploadReference.signedReceipt).to.be.a('string')
    expect(JSON.stringify(i)).not.to.include(emu.storage.accessKey)

    // The binding holds: another type is refused by the host.
    const wrongType = await fetch(i.request.url, { body: new Uint8Array(png), headers: { ...i.request.headers, 'Content-Type': 'image/jpeg' }, method: 'PUT' })
    expect(wrongType.status).to.equal(403)
    const put = await fetch(i.request.url, { body: new Uint8Array(png), headers: i.request.headers, method: 'PUT' })
    expect(put.status).to.equal(200)
    const key = `${i.file.uploadReference.prefix}/${i.file.filename}`
    expect(emu.storedFilePath(key), 'the bytes went to the host directly').to.be.a('string')

    const created = await createByReference(cms, i)
    expect(created.status, await created.clone().text()).to.equal(201)
    const { doc } = (await created.json()) as { doc: MediaDoc }
    // One document per reference: the same one again is refused and saves nothing (newer 4.x cores refuse
    // a reference whose file name a document holds already, before the plugin's own single-use check).
    const countAfterCreate = await mediaCount(cms)
    const reused = await createByReference(cms, i)
    expect(reused.status, await reused.clone().text()).to.equal(400)
    expect(((await reused.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).to.match(/receipt was already used|Invalid upload reference/)
    expect(await mediaCount(cms)).to.equal(countAfterCreate)
    expect(doc.filename).to.equal(i.file.filename)
    expect(doc.prefix, 'the upload folder is the document prefix').to.equal(i.file.uploadReference.prefix)
    expect([doc.width, doc.height]).to.deep.equal([90, 60])
    expect(doc.sizes.thumbnail.width).to.equal(40)
    const thumbKey = `${doc.prefix}/${doc.sizes.thumbnail.filename}`
    expect(emu.storedFilePath(thumbKey), 'the size was generated and stored beside the original').to.be.a('string')

    const served = await cms.fetch(`/api/media/file/${encodeURIComponent(doc.filename)}`)
    expect(served.status).to.equal(200)
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).to.equal(true)

    const deleted = await cms.fetch(`/api/media/${doc.id}`, { method: 'DELETE' })
    expect(deleted.status).to.equal(200)
    expect(emu.storedFilePath(key)).to.equal(undefined)
    expect(emu.storedFilePath(thumbKey)).to.equal(undefined)
  })

  it('refuses forged, tampered and foreign references with nothing saved', async () => {
    const png = await pngBytes(30, 30)
    const i = await uploadDirect(cms, png, 'mine.png', 'image/png')
    const before = await mediaCount(cms)

    const missing = await createByReference(cms, i, { prefix: i.file.uploadReference.prefix })
    expect(missing.status).to.equal(400)
    const [encoded, signature] = i.file.uploadReference.signedReceipt.split('.')
    const payload = JSON.parse(Buffer.from(encoded!, 'base64url').toString()) as { context: { prefix: string } }
    payload.context.prefix = 'elsewhere'
    const tampered = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`
    const forged = await createByReference(cms, i, { prefix: 'elsewhere', signedReceipt: tampered })
    expect(forged.status).to.equal(400)
    expect(((await forged.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).to.match(/upload reference/i)
    const foreign = await createByReference(cms, i, undefined, cms.otherToken)
    expect(foreign.status, 'a receipt is bound to the user it was issued to').to.equal(400)
    const renamed = await createByReference(cms, { ...i, file: { ...i.file, filename: 'other-name.png' } })
    expect(renamed.status, 'and to the file name').to.equal(400)
    expect(await mediaCount(cms)).to.equal(before)

    // The genuine reference still works afterwards.
    const ok = await createByReference(cms, i)
    expect(ok.status, await ok.clone().text()).to.equal(201)
  })

  it('sweeps the folder of a client upload that never became a document, and only that one', async () => {
    const kept = await uploadDirect(cms, await pngBytes(20, 20), 'kept.png', 'image/png')
    expect((await createByReference(cms, kept)).status).to.equal(201)
    const orphan = await uploadDirect(cms, await pngBytes(20, 20), 'orphan.png', 'image/png')
    const orphanKey = `${orphan.file.uploadReference.prefix}/${orphan.file.filename}`
    expect(emu.storedFilePath(orphanKey)).to.be.a('string')

    const deleted = await cms.sweepOrphanUploads()
    expect(deleted).to.include(orphanKey)
    expect(emu.storedFilePath(orphanKey)).to.equal(undefined)
    expect(emu.storedFilePath(`${kept.file.uploadReference.prefix}/${kept.file.filename}`), 'a referenced upload stays').to.be.a('string')
  })

  it('checks the file and narrows access with clientUploads.access', async () => {
    const svg = await instructions(cms, { collectionSlug: 'media', filename: 'x.svg', filesize: 100, mimeType: 'image/svg+xml' })
    expect(svg.status).to.equal(400)
    const tooBig = await instructions(cms, { collectionSlug: 'media', filename: 'big.png', filesize: 6 * 1024 * 1024, mimeType: 'image/png' })
    expect(tooBig.status, 'over upload.limits.fileSize').to.equal(400)
    // Types outside the collection's `mimeTypes` and pages: the 4.x core refuses what its own rules
    // know (400), the plugin's rules (one set with tus-auth) the rest (415). Nothing is signed.
    for (const [filename, mimeType] of [
      ['clip.mp4', 'video/mp4'],
      ['poc.html', 'text/html'],
      ['poc.html', 'image/png'],
      ['poc.png', 'text/html'],
    ]) {
      const refused = await instructions(cms, { collectionSlug: 'media', filename, filesize: 100, mimeType })
      expect(refused.status, `${filename} as ${mimeType}`).to.be.oneOf([400, 415])
      expect(await refused.json()).not.to.have.property('request')
    }
    // A page the core's list lacks: only the plugin's check stands between it and the pull zone.
    const xht = await instructions(cms, { collectionSlug: 'media', filename: 'poc.xht', filesize: 100, mimeType: 'image/png' })
    expect(xht.status, await xht.clone().text()).to.equal(415)
    expect(((await xht.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).to.match(/\.xht are restricted/)

    const admin = await instructions(narrowed, { collectionSlug: 'media', filename: 'a.png', filesize: 10, mimeType: 'image/png' })
    expect(admin.status).to.equal(200)
    const other = await instructions(narrowed, { collectionSlug: 'media', filename: 'a.png', filesize: 10, mimeType: 'image/png' }, narrowed.otherToken)
    expect(other.status, 'access refuses this user although the CMS check lets them create').to.equal(403)
  })

  it('stream.tus.access replaces the default check of tus-auth', async () => {
    const video = mp4Bytes(64 * 1024)
    const body = { collection: 'videos', filename: 'clip.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'Clip' }
    expect((await tusAuth(narrowed, body)).status).to.equal(200)
    expect((await tusAuth(narrowed, body, narrowed.otherToken)).status).to.equal(403)
    // Without `access`, the default check lets the other user (who may create videos) through.
    expect((await tusAuth(cms, body, cms.otherToken)).status).to.equal(200)

    // The admin's save asks upload-instructions: a `dispatch` the TUS field answers, same access rule.
    const ask = { collectionSlug: 'videos', filename: 'clip.mp4', filesize: video.length, mimeType: 'video/mp4' }
    const dispatch = await instructions(narrowed, ask)
    expect(dispatch.status, await dispatch.clone().text()).to.equal(200)
    expect(await dispatch.json()).to.deep.equal({
      type: 'dispatch',
      name: 'storage-host-tus',
      file: { filename: 'clip.mp4', mimeType: 'video/mp4', size: video.length, uploadReference: {} },
    })
    expect((await instructions(narrowed, ask, narrowed.otherToken)).status).to.equal(403)
  })

  it('uploads a video through TUS, saves it by receipt and token, and follows the callbacks to finished', async () => {
    const video = mp4Bytes(256 * 1024)
    const res = await tusAuth(cms, {
      collection: 'videos',
      filename: 'My Clip.mp4',
      filesize: video.length,
      filetype: 'video/mp4',
      head: headOf(video),
      title: 'My clip',
    })
    expect(res.status, await res.clone().text()).to.equal(200)
    const auth = (await res.json()) as TusAuthResponse
    await startTus(emu.stream.tusEndpoint, auth, video).done

    const forged = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: video.length, videoToken: `${auth.videoToken}x` })
    expect(forged.status, 'a forged token is refused').to.equal(400)
    const saved = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: video.length, videoToken: auth.videoToken })
    expect(saved.status, await saved.clone().text()).to.equal(201)
    const { doc } = (await saved.json()) as { doc: VideoDoc }
    expect(doc.hostData.stream.videoId).to.equal(auth.videoId)
    expect(doc.hostData.stream.playlistUrl).to.equal(`${emu.stream.cdnUrl}/${auth.videoId}/playlist.m3u8`)

    await emu.whenEncoded(auth.videoId)
    const current = await waitFor('the webhook to mark the video finished', async () => {
      const row = (await (await cms.fetch(`/api/videos/${doc.id}?depth=0`)).json()) as VideoDoc
      return row.hostData.stream.status === 'finished' ? row : undefined
    })
    expect(current.hostData.stream.status).to.equal('finished')
    expect(current.hostData.stream.resolutions!.length).to.be.greaterThan(0)

    const deleted = await cms.fetch(`/api/videos/${doc.id}`, { method: 'DELETE' })
    expect(deleted.status).to.equal(200)
    expect(
      emu.videos().some((v) => v.guid === auth.videoId),
      'the video is deleted on the host',
    ).to.equal(false)
  })

  it('a save without a new file keeps the stored object untouched and hostData whole (4.x)', async () => {
    const png = await pngBytes(48, 48)
    const created = await cms.fetch('/api/media', { body: multipart(png, 'kept on 4.png', 'image/png', { alt: 'first' }), method: 'POST' })
    expect(created.status, await created.clone().text()).to.equal(201)
    const { doc: image } = (await created.json()) as { doc: MediaDoc }
    const path = emu.storedFilePath(image.prefix ? `${image.prefix}/${image.filename}` : image.filename)!
    const before = { bytes: await readFile(path), stat: await stat(path) }
    const edit = await cms.fetch(`/api/media/${image.id}`, {
      body: JSON.stringify({ alt: 'second' }),
      headers: { 'Content-Type': 'application/json' },
      method: 'PATCH',
    })
    expect(edit.status, await edit.clone().text()).to.equal(200)
    const edited = (await edit.json()) as { doc: MediaDoc & { alt: string } }
    expect(edited.doc.alt).to.equal('second')
    for (const field of ['filename', 'prefix', 'url', 'width', 'height', 'sizes'] as const) expect(edited.doc[field], field).to.deep.equal(image[field])
    const now = await stat(path)
    expect((await readFile(path)).equals(before.bytes)).to.equal(true)
    expect([now.ino, now.mtimeMs]).to.deep.equal([before.stat.ino, before.stat.mtimeMs])

    const video = mp4Bytes(64 * 1024)
    const auth = (await (
      await tusAuth(cms, { collection: 'videos', filename: 'kept.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'Kept' })
    ).json()) as TusAuthResponse
    const saved = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: video.length, videoToken: auth.videoToken })
    expect(saved.status, await saved.clone().text()).to.equal(201)
    const { doc } = (await saved.json()) as { doc: VideoDoc }
    await startTus(emu.stream.tusEndpoint, auth, video).done
    await emu.whenEncoded(auth.videoId)
    const current = await waitFor('the webhook to mark the video finished', async () => {
      const row = (await (await cms.fetch(`/api/videos/${doc.id}?depth=0`)).json()) as VideoDoc
      return row.hostData.stream.status === 'finished' ? row : undefined
    })
    expect(current.hostData.stream.resolutions!.length).to.be.greaterThan(0)
    const videos = emu.videos().length
    const renamed = await cms.fetch(`/api/videos/${doc.id}`, {
      body: JSON.stringify({ title: 'Renamed' }),
      headers: { 'Content-Type': 'application/json' },
      method: 'PATCH',
    })
    expect(renamed.status, await renamed.clone().text()).to.equal(200)
    const after = (await (await cms.fetch(`/api/videos/${doc.id}?depth=0`)).json()) as VideoDoc
    expect(after.hostData).to.deep.equal(current.hostData)
    expect(after.filename).to.equal(current!.filename)
    expect(emu.videos().length, 'no video created or re-uploaded').to.equal(videos)
    expect(emu.videos().find((v) => v.guid === auth.videoId)?.storageSize).to.equal(video.length)

    // The playback endpoint (a collection endpoint) on the 4.x router: URLs for a reader, 403 for anonymous.
    const play = await cms.fetch(`/api/videos/${doc.id}/playback`)
    expect(play.status, await play.clone().text()).to.equal(200)
    const urls = (await play.json()) as { hls: string; mp4: Array<{ url: string }> }
    expect(urls.hls).to.equal(`${emu.stream.cdnUrl}/${auth.videoId}/playlist.m3u8`)
    expect((await fetch(urls.hls)).status).to.equal(200)
    expect(urls.mp4.length).to.equal(current.hostData.stream.resolutions!.length)
    expect((await cms.fetch(`/api/videos/${doc.id}/playback`, { auth: false })).status).to.equal(403)
  })

  it('still stores a file sent through the CMS itself, with its sizes, and deletes them', async () => {
    const png = await pngBytes(64, 64)
    const created = await cms.fetch('/api/media', { body: multipart(png, 'server side.png', 'image/png', { alt: 'through the CMS' }), method: 'POST' })
    expect(created.status, await created.clone().text()).to.equal(201)
    const { doc } = (await created.json()) as { doc: MediaDoc }
    const key = doc.prefix ? `${doc.prefix}/${doc.filename}` : doc.filename
    const thumbKey = doc.prefix ? `${doc.prefix}/${doc.sizes.thumbnail.filename}` : doc.sizes.thumbnail.filename
    expect(emu.storedFilePath(key)).to.be.a('string')
    expect(emu.storedFilePath(thumbKey)).to.be.a('string')
    const served = await cms.fetch(`/api/media/file/${encodeURIComponent(doc.filename)}`)
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).to.equal(true)
    expect((await cms.fetch(`/api/media/${doc.id}`, { method: 'DELETE' })).status).to.equal(200)
    expect(emu.storedFilePath(key)).to.equal(undefined)
    expect(emu.storedFilePath(thumbKey)).to.equal(undefined)
  })

  it('sends a video posted to the CMS itself on to the streaming host', async () => {
    const video = mp4Bytes(128 * 1024)
    const created = await cms.fetch('/api/videos', { body: multipart(video, 'server clip.mp4', 'video/mp4', { title: 'Server clip' }), method: 'POST' })
    expect(created.status, await created.clone().text()).to.equal(201)
    const { doc } = (await created.json()) as { doc: VideoDoc }
    const stored = (await (await cms.fetch(`/api/videos/${doc.id}?depth=0`)).json()) as VideoDoc
    const videoId = stored.hostData.stream.videoId
    expect(videoId, 'the adapter recorded the video it created').to.be.a('string')
    expect(emu.videos().find((v) => v.guid === videoId)?.storageSize).to.equal(video.length)
  })

  it('fails a create whose size cannot be stored, and leaves neither document nor object behind', async () => {
    // A proxy in front of the emulator's storage API that refuses the thumbnail's PUT only.
    const proxy: Server = createServer((req, res) => {
      if (req.method === 'PUT' && /-40x40/.test(req.url ?? '')) {
        req.resume()
        res.writeHead(500).end('boom')
        return
      }
      const upstream = httpRequest(`${emu.storage.endpoint}${req.url}`, { headers: req.headers, method: req.method }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      req.pipe(upstream)
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    const address = proxy.address()
    const storageEndpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    const faulty = await startPayload4Cms(project, emu, { scenario: 'default', storageEndpoint })
    try {
      const before = await mediaCount(faulty)
      const png = await pngBytes(64, 64)
      const res = await faulty.fetch('/api/media', { body: multipart(png, 'broken.png', 'image/png', { alt: 'never stored' }), method: 'POST' })
      expect(res.status).to.be.oneOf([500, 502])
      const body = (await res.json()) as { errors: Array<{ message: string }> }
      expect(body.errors[0]!.message).to.match(/storage host failed.*HTTP 500/)
      expect(await mediaCount(faulty)).to.equal(before)
      expect(emu.storedFilePath('broken.png'), 'no orphan original').to.equal(undefined)
    } finally {
      await faulty.close()
      proxy.closeAllConnections()
      await new Promise<void>((resolve) => proxy.close(() => resolve()))
    }
  })
})
