/**
 * Options that change behaviour, each proven by what it does: `disabled` (schema kept, nothing else),
 * `serve: 'redirect'` + `tokenAuth` (302 to a token-signed CDN URL the pull zone accepts), a video sent
 * through the CMS itself (server-side TUS), and configuration errors.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

import { expect } from 'chai'
import type { Config } from 'payload'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import { storageHostPlugin, resolveOptions } from '../src/index.js'
import { mp4Bytes, pngBytes } from './support/media.js'
import { multipart } from './support/api.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

describe('options', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  before(async () => {
    emu = await startEmulator({ pullZone: { tokenAuthKey: 'cdn-token-key' } })
  })
  after(async () => {
    await emu?.close()
  })

  describe('disabled: true', () => {
    let cms: RunningCms
    before(async () => {
      cms = await startCms({ ...emulatorOptions(emu), disabled: true })
    })
    after(() => cms?.close())

    it('keeps the hostData schema but installs no endpoint, adapter or hook', async () => {
      const videos = cms.payload.collections.videos!.config
      expect(videos.fields.some((f) => 'name' in f && f.name === 'hostData')).to.equal(true)
      const mediaFields = cms.payload.collections.media!.config.fields.map((f) => ('name' in f ? f.name : ''))
      expect(mediaFields).to.include.members(['prefix', '_objectKey', 'url'])
      expect(videos.upload && typeof videos.upload === 'object' && videos.upload.adapter).to.equal(undefined)
      expect(videos.upload && typeof videos.upload === 'object' && videos.upload.mimeTypes).to.deep.equal(['video/mp4', 'video/webm', 'video/quicktime'])
      for (const path of ['/api/storage-host/stream/tus-auth', '/api/storage-host/stream/webhook', '/api/storage-host/storage/upload']) {
        const res = await cms.fetch(path, { body: '{}', headers: { 'Content-Type': 'application/json' }, method: 'POST' })
        expect(res.status, path).to.equal(404)
      }
      // Uploads stay local: nothing reaches the host.
      const before = emu.videos().length
      const res = await cms.fetch('/api/media', { body: multipart(await pngBytes(), 'local.png', 'image/png'), method: 'POST' })
      expect(res.status).to.equal(201)
      expect(emu.storedFilePath('local.png')).to.equal(undefined)
      expect(emu.videos().length).to.equal(before)
    })
  })

  describe("serve: 'redirect' with tokenAuth", () => {
    let cms: RunningCms
    before(async () => {
      const base = emulatorOptions(emu)
      cms = await startCms({ ...base, storage: { ...base.storage!, serve: 'redirect', tokenAuth: { expiresIn: 600, key: 'cdn-token-key' } } })
    })
    after(() => cms?.close())

    it('answers 302 to a token-signed CDN URL that the pull zone accepts, and a tampered one is refused', async () => {
      const png = await pngBytes()
      const created = await cms.fetch('/api/media', { body: multipart(png, 'cdn.png', 'image/png'), method: 'POST' })
      expect(created.status).to.equal(201)
      const res = await cms.fetch('/api/media/file/cdn.png', { redirect: 'manual' })
      expect(res.status, await res.clone().text()).to.equal(302)
      const location = res.headers.get('location')!
      expect(location.startsWith(`${emu.storage.cdnUrl}/cdn.png?`)).to.equal(true)
      expect(new URL(location).searchParams.get('token')).to.match(/^HS256-/)
      const cdn = await fetch(location)
      expect(cdn.status).to.equal(200)
      expect(Buffer.from(await cdn.arrayBuffer()).equals(png)).to.equal(true)
      const ranged = await fetch(location, { headers: { Range: 'bytes=2-5' } })
      expect(ranged.status).to.equal(206)
      await ranged.body?.cancel()
      const tampered = new URL(location)
      tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 1))
      expect((await fetch(tampered)).status).to.equal(403)
      // The document's URL is the CMS file route (access control stays with Payload).
      const doc = (await created.json()) as { doc: { url: string } }
      expect(doc.doc.url).to.equal('/api/media/file/cdn.png')
    })
  })

  describe('publicUrls with tokenAuth', () => {
    let cms: RunningCms
    before(async () => {
      const base = emulatorOptions(emu)
      cms = await startCms({ ...base, storage: { ...base.storage!, publicUrls: true, tokenAuth: { key: 'cdn-token-key' } } })
    })
    after(() => cms?.close())

    it('documents carry a CDN URL signed at read time, which the pull zone accepts', async () => {
      const png = await pngBytes()
      const created = await cms.fetch('/api/media', { body: multipart(png, 'public.png', 'image/png'), method: 'POST' })
      expect(created.status).to.equal(201)
      const id = ((await created.json()) as { doc: { id: number } }).doc.id
      const read = (await (await cms.fetch(`/api/media/${id}`)).json()) as { url: string; sizes: { thumbnail: { url: string } } }
      expect(read.url.startsWith(`${emu.storage.cdnUrl}/public.png?`)).to.equal(true)
      expect(new URL(read.url).searchParams.get('token')).to.match(/^HS256-/)
      const cdn = await fetch(read.url)
      expect(cdn.status).to.equal(200)
      expect(Buffer.from(await cdn.arrayBuffer()).equals(png)).to.equal(true)
      expect((await fetch(read.sizes.thumbnail.url)).status).to.equal(200)
    })
  })

  describe('a video sent through the CMS itself', () => {
    let cms: RunningCms
    before(async () => {
      cms = await startCms(emulatorOptions(emu))
    })
    after(() => cms?.close())

    it('creates the video on the host, uploads it by TUS from the server and fills hostData', async () => {
      const video = mp4Bytes(200 * 1024)
      const res = await cms.fetch('/api/videos', { body: multipart(video, 'server.mp4', 'video/mp4', { title: 'Server side' }), method: 'POST' })
      expect(res.status, await res.clone().text()).to.equal(201)
      const id = ((await res.json()) as { doc: { id: number } }).doc.id
      const doc = (await cms.payload.findByID({ collection: 'videos', depth: 0, id })) as unknown as {
        hostData: { stream: { videoId: string; status: string } }
      }
      const hosted = emu.videos().find((v) => v.guid === doc.hostData.stream.videoId)
      expect(hosted?.title).to.equal('Server side')
      expect(hosted?.storageSize).to.equal(video.length)
    })

    it('fails with a clear error when the TUS upload fails, and deletes the video and the document', async () => {
      // A real TUS endpoint that refuses every upload (nock cannot reach tus-js-client's bound http.request).
      const broken = createServer((req, res) => {
        req.resume()
        res.writeHead(500, { 'Tus-Resumable': '1.0.0' }).end('tus broke')
      })
      await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve))
      const base = emulatorOptions(emu)
      const failing = await startCms({
        ...base,
        stream: { ...base.stream!, tusEndpoint: `http://127.0.0.1:${(broken.address() as AddressInfo).port}/tusupload` },
      })
      try {
        const videosBefore = emu.videos().length
        const res = await failing.fetch('/api/videos', { body: multipart(mp4Bytes(64 * 1024), 'fails.mp4', 'video/mp4', { title: 'Fails' }), method: 'POST' })
        const body = (await res.json()) as { errors: Array<{ message: string }> }
        expect(res.status).to.equal(502)
        expect(body.errors[0]!.message).to.match(
          /Sending "fails\.mp4" to the streaming host failed \(The TUS upload of the video failed: the host answered HTTP 500\)/,
        )
        expect(emu.videos().length, 'the created video is deleted again').to.equal(videosBefore)
        expect((await failing.payload.count({ collection: 'videos' })).totalDocs).to.equal(0)
      } finally {
        await failing.close()
        broken.closeAllConnections()
        await new Promise((resolve) => broken.close(resolve))
      }
    })

    it("refuses a type outside the collection's mimeTypes (enforced by the plugin)", async () => {
      const res = await cms.fetch('/api/videos', { body: multipart(Buffer.from('hello'), 'notes.txt', 'text/plain'), method: 'POST' })
      expect(res.status).to.equal(400)
    })
  })

  describe('access callbacks and stream options', () => {
    let cms: RunningCms
    before(async () => {
      const base = emulatorOptions(emu)
      cms = await startCms({
        ...base,
        storage: { ...base.storage!, clientUploads: { access: ({ req }) => (req.user as { email?: string } | null)?.email === 'admin@example.com' } },
        stream: {
          ...base.stream!,
          mp4Fallback: false,
          thumbnailTime: undefined,
          // Current generation: replaces the default check (here: only the admin, but in every collection).
          tus: {
            access: ({ req }) => (req.user as { email?: string } | null)?.email === 'admin@example.com',
            checkAccess: (_req, body) => body.title !== 'forbidden',
            expiresIn: 60,
          },
        },
      })
    })
    after(() => cms?.close())

    const tus = (body: Record<string, unknown>, auth?: string) =>
      cms.fetch('/api/storage-host/stream/tus-auth', { auth, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' }, method: 'POST' })
    const ok = { collection: 'locked-videos', filename: 'v.mp4', filesize: 1000, filetype: 'video/mp4', title: 'V' }

    it('stream.tus.access replaces the default check; checkAccess narrows it', async () => {
      const askedFrom = Math.floor(Date.now() / 1000)
      const allowed = await tus(ok)
      const answeredBy = Math.floor(Date.now() / 1000)
      expect(allowed.status, 'locked collection allowed by access').to.equal(200)
      const body = (await allowed.json()) as { authorizationExpire: number; thumbnailTime?: number }
      // stream.tus.expiresIn (60 s) from the moment of signing: bounded by the clock read before and after the request.
      expect(body.authorizationExpire).to.be.within(askedFrom + 60, answeredBy + 60)
      expect(body).not.to.have.property('thumbnailTime')
      expect((await tus({ ...ok, collection: 'videos' }, cms.otherToken)).status, 'other user denied by access').to.equal(403)
      expect((await tus({ ...ok, title: 'forbidden' })).status, 'checkAccess narrows').to.equal(403)
    })

    it('storage.clientUploads.access narrows who may sign', async () => {
      const sign = (auth?: string) =>
        cms.fetch('/api/storage-host/storage/upload', {
          auth,
          body: JSON.stringify({ collectionSlug: 'media', filename: 'a.png', mimeType: 'image/png', size: 10 }),
          headers: { 'Content-Type': 'application/json' },
          method: 'POST',
        })
      expect((await sign()).status).to.equal(200)
      expect((await sign(cms.otherToken)).status).to.equal(403)
    })

    it('mp4Fallback: false leaves resolutions empty on completion', async () => {
      const { createHmac } = await import('node:crypto')
      const head = mp4Bytes(8192).subarray(0, 4096).toString('base64')
      const video = (await (await tus({ ...ok, collection: 'videos', head })).json()) as {
        videoId: string
        videoToken: string
        filename: string
        signedReceipt: string
      }
      const form = new FormData()
      form.append(
        'file',
        JSON.stringify({ clientUploadContext: { signedReceipt: video.signedReceipt }, filename: video.filename, mimeType: 'video/mp4', size: 1000 }),
      )
      form.append('_payload', JSON.stringify({ hostData: { stream: { videoToken: video.videoToken } } }))
      const saved = await cms.fetch('/api/videos', { body: form, method: 'POST' })
      expect(saved.status, await saved.clone().text()).to.equal(201)
      const id = ((await saved.json()) as { doc: { id: number } }).doc.id
      const raw = JSON.stringify({ Status: 3, VideoGuid: video.videoId, VideoLibraryId: emu.stream.libraryId })
      const res = await fetch(`${cms.url}/api/storage-host/stream/webhook`, {
        body: raw,
        headers: {
          'X-HostStream-Signature': createHmac('sha256', emu.stream.readOnlyKey).update(raw).digest('hex'),
          'X-HostStream-Signature-Algorithm': 'hmac-sha256',
          'X-HostStream-Signature-Version': 'v1',
        },
        method: 'POST',
      })
      expect(res.status).to.equal(200)
      const doc = (await cms.payload.findByID({ collection: 'videos', depth: 0, id })) as unknown as {
        hostData: { stream: { status: string; resolutions: unknown[] } }
      }
      expect(doc.hostData.stream.status).to.equal('finished')
      expect(doc.hostData.stream.resolutions).to.deep.equal([])
    })
  })

  describe('configuration errors', () => {
    it('refuses a collection whose host is not configured', () => {
      expect(() => resolveOptions({ collections: { media: 'storage' } })).to.throw(/targets storage but neither storage options nor its own zone are set/)
      expect(() => resolveOptions({ collections: { videos: 'stream' } })).to.throw(/targets stream but neither stream options nor its own library are set/)
    })
    it("refuses serve: 'redirect' without a CDN URL", () => {
      expect(() => resolveOptions({ collections: {}, storage: { accessKey: 'k', serve: 'redirect', zoneName: 'z' } })).to.throw(/cdnUrl/)
    })
    it('refuses a non-upload collection', () => {
      expect(() =>
        storageHostPlugin({ ...emulatorOptions(emu), collections: { posts: 'storage' } })({
          collections: [{ fields: [], slug: 'posts' }],
          secret: 'x',
        } as unknown as Config),
      ).to.throw(/not an upload collection/)
    })
    it('is safe to apply twice (endpoints registered once)', () => {
      const plugin = storageHostPlugin(emulatorOptions(emu))
      const config = plugin(
        plugin({
          collections: [
            { fields: [], slug: 'media', upload: true },
            { fields: [], slug: 'videos', upload: true },
            { fields: [], slug: 'locked-videos', upload: true },
          ],
          secret: 'x',
        } as unknown as Config),
      )
      const paths = (config.endpoints ?? []).map((e) => e.path)
      expect(paths.filter((p) => p === '/storage-host/stream/tus-auth')).to.have.length(1)
      // Each endpoint documents itself for plugin-openapi.
      const ids = (config.endpoints ?? []).map((e) => (e.custom as { openapi?: { operationId?: string } } | undefined)?.openapi?.operationId)
      expect(ids).to.include.members(['storageHostTusAuth', 'storageHostStreamWebhook', 'storageHostClientUpload'])
    })
  })
})
