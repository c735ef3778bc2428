/**
 * A zone and a library per collection: two emulated hosts (each its own storage zone, pull zone, video
 * library, keys and webhook key), one CMS. `media` and `videos` use the top-level `storage`/`stream`;
 * `private-files` has its own zone (token-authenticated pull zone) and `private-videos` its own library.
 * Every path follows the collection's target: files sent through the CMS, client uploads, file routes,
 * tus-auth, TUS, the one webhook endpoint (routed by `VideoLibraryId`), playback and the sweeps.
 */
import { expect } from 'chai'
import type { Config } from 'payload'
import { startEmulator, webhookSignatureHeaders, type RunningEmulator } from 'dev-app/emulator'

import { sweepOrphanUploads, resolveOptions, storageHostPlugin } from '../src/index.js'
import { WEBHOOK_PATH } from '../src/constants.js'
import type { StorageHostPluginOptions, TusAuthResponse } from '../src/types.js'
import { multipart, tusAuth } from './support/api.js'
import { headOf, mp4Bytes, pngBytes } from './support/media.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'
import { startTus } from './support/tus.js'

const json = (body: unknown): RequestInit => ({ body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' }, method: 'POST' })

describe('a zone and a library per collection', function () {
  this.timeout(90_000)
  let main: RunningEmulator
  let other: RunningEmulator
  let cms: RunningCms
  let options: StorageHostPluginOptions

  before(async () => {
    ;[main, other] = await Promise.all([
      startEmulator({ stream: { encodingStepMs: 20 } }),
      startEmulator({
        pullZone: { tokenAuthKey: 'private-cdn-key' },
        storage: { accessKey: 'private-zone-key', zoneName: 'private-zone' },
        stream: { apiKey: 'private-library-key', encodingStepMs: 20, libraryId: 2002, readOnlyKey: 'private-readonly-key' },
      }),
    ])
    const base = emulatorOptions(main)
    options = {
      ...base,
      collections: {
        ...base.collections,
        'private-files': {
          target: 'storage',
          zone: {
            accessKey: other.storage.accessKey,
            cdnUrl: other.storage.cdnUrl,
            clientUploads: { sweepInterval: 0 },
            endpoint: other.storage.endpoint,
            s3Endpoint: other.storage.s3Endpoint,
            serve: 'redirect',
            tokenAuth: { expiresIn: 600, key: 'private-cdn-key' },
            zoneName: other.storage.zoneName,
          },
        },
        'private-videos': {
          target: 'stream',
          library: {
            apiBase: other.stream.apiBase,
            apiKey: other.stream.apiKey,
            cdnUrl: other.stream.cdnUrl,
            libraryId: other.stream.libraryId,
            tus: true,
            tusEndpoint: other.stream.tusEndpoint,
            webhook: { secret: other.stream.readOnlyKey },
          },
        },
      },
    }
    cms = await startCms(options, {
      extraCollections: [
        { slug: 'private-files', fields: [], upload: { imageSizes: [{ name: 'thumbnail', height: 20, width: 20 }] } },
        { slug: 'private-videos', fields: [{ name: 'title', type: 'text' }], upload: { mimeTypes: ['video/mp4'] } },
      ],
    })
    for (const emu of [main, other]) emu.setWebhookUrl(`${cms.url}/api${WEBHOOK_PATH}`)
  })
  after(async () => {
    await cms?.close()
    await Promise.all([main?.close(), other?.close()])
  })

  it('stores each collection in its own zone, serves it from there, and deletes it there', async () => {
    const png = await pngBytes(60, 40)
    const [mainDoc, privateDoc] = await Promise.all(
      ['media', 'private-files'].map(async (slug) => {
        const res = await cms.fetch(`/api/${slug}`, { body: multipart(png, `${slug}.png`, 'image/png'), method: 'POST' })
        expect(res.status, await res.clone().text()).to.equal(201)
        return ((await res.json()) as { doc: { id: number; filename: string; sizes: { thumbnail: { filename: string } } } }).doc
      }),
    )
    expect(main.storedFilePath(mainDoc!.filename), 'media: the top-level zone').to.be.a('string')
    expect(other.storedFilePath(mainDoc!.filename)).to.equal(undefined)
    expect(other.storedFilePath(privateDoc!.filename), 'private-files: its own zone').to.be.a('string')
    expect(other.storedFilePath(privateDoc!.sizes.thumbnail.filename)).to.be.a('string')
    expect(main.storedFilePath(privateDoc!.filename)).to.equal(undefined)

    // Its own pull zone and token key: the file route redirects there with a token that zone accepts.
    const route = await cms.fetch(`/api/private-files/file/${privateDoc!.filename}`, { redirect: 'manual' })
    expect(route.status).to.equal(302)
    const location = route.headers.get('location')!
    expect(location.startsWith(`${other.storage.cdnUrl}/`)).to.equal(true)
    expect(new URL(location).searchParams.get('token')).to.match(/^HS256-/)
    const served = await fetch(location)
    expect(served.status).to.equal(200)
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).to.equal(true)

    const deleted = await cms.fetch(`/api/private-files/${privateDoc!.id}`, { method: 'DELETE' })
    expect(deleted.status).to.equal(200)
    expect(other.storedFilePath(privateDoc!.filename)).to.equal(undefined)
    expect(main.storedFilePath(mainDoc!.filename), 'the other zone is untouched').to.be.a('string')
  })

  it("signs client uploads for the collection's own zone, and sweeps orphans zone by zone", async () => {
    const png = await pngBytes(30, 30)
    const res = await cms.fetch(
      '/api/storage-host/storage/upload',
      json({ collectionSlug: 'private-files', filename: 'direct.png', mimeType: 'image/png', size: png.length }),
    )
    expect(res.status, await res.clone().text()).to.equal(200)
    const signed = (await res.json()) as { url: string; headers: Record<string, string>; filename: string; clientUploadContext: Record<string, unknown> }
    expect(signed.url.startsWith(`${other.storage.s3Endpoint}/${other.storage.zoneName}/`)).to.equal(true)
    const put = await fetch(signed.url, { body: new Uint8Array(png), headers: signed.headers, method: 'PUT' })
    expect(put.status).to.equal(200)
    // Never made into a document: the sweep of the other zone finds it, the top-level zone's sweep does not.
    const resolved = resolveOptions(options)
    const privateZone = resolved.collections.get('private-files')!.storage!
    expect(await sweepOrphanUploads(cms.payload, resolved, { olderThanMs: 0, zone: resolved.storage! })).to.deep.equal([])
    const swept = await sweepOrphanUploads(cms.payload, resolved, { olderThanMs: 0, zone: privateZone })
    expect(swept).to.have.length(1)
    expect(swept[0]).to.match(/\/direct\.png$/)
  })

  it("creates, uploads and finishes a video in the collection's own library; the one webhook routes by library", async () => {
    const video = mp4Bytes(48 * 1024)
    const authRes = await tusAuth(cms, {
      collection: 'private-videos',
      filename: 'private.mp4',
      filesize: video.length,
      filetype: 'video/mp4',
      head: headOf(video),
      title: 'Private',
    })
    expect(authRes.status, await authRes.clone().text()).to.equal(200)
    const auth = (await authRes.json()) as TusAuthResponse
    expect(auth.libraryId).to.equal(2002)
    expect(other.videos().map((v) => v.guid)).to.include(auth.videoId)
    expect(main.videos().map((v) => v.guid)).not.to.include(auth.videoId)
    // The signature is the other library's (its API key): its TUS endpoint accepts the bytes.
    await startTus(other.stream.tusEndpoint, auth, video).done

    const form = new FormData()
    const reference = { signedReceipt: auth.signedReceipt }
    form.append('file', JSON.stringify({ clientUploadContext: reference, filename: auth.filename, mimeType: 'video/mp4', size: video.length }))
    form.append('_payload', JSON.stringify({ hostData: { stream: { videoToken: auth.videoToken } }, title: 'Private' }))
    const saved = await cms.fetch('/api/private-videos', { body: form, method: 'POST' })
    expect(saved.status, await saved.clone().text()).to.equal(201)
    const id = ((await saved.json()) as { doc: { id: number } }).doc.id

    // A token of this library does not bind a document of the other one.
    const wrongForm = new FormData()
    wrongForm.append('file', JSON.stringify({ clientUploadContext: reference, filename: auth.filename, mimeType: 'video/mp4', size: video.length }))
    wrongForm.append('_payload', JSON.stringify({ hostData: { stream: { videoToken: auth.videoToken } }, title: 'Elsewhere' }))
    expect((await cms.fetch('/api/videos', { body: wrongForm, method: 'POST' })).status).to.equal(400)

    // A callback naming this library but signed with the other library's key is refused like a forgery.
    const raw = JSON.stringify({ Status: 3, VideoGuid: auth.videoId, VideoLibraryId: 2002 })
    const forged = await fetch(`${cms.url}/api${WEBHOOK_PATH}`, { body: raw, headers: webhookSignatureHeaders(raw, main.stream.readOnlyKey), method: 'POST' })
    expect(forged.status).to.equal(401)

    // The library's own callbacks (the emulator encodes and calls the one webhook) finish the document.
    await other.whenEncoded(auth.videoId)
    const stream = async () =>
      ((await cms.payload.findByID({ collection: 'private-videos', depth: 0, id })) as unknown as { hostData: { stream: Record<string, unknown> } }).hostData
        .stream
    const deadline = Date.now() + 20_000
    while ((await stream()).status !== 'finished') {
      if (Date.now() > deadline) throw new Error(`not finished: ${JSON.stringify(await stream())}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    expect((await stream()).libraryId).to.equal(2002)

    // Playback on the library's own pull zone.
    const playback = (await (await cms.fetch(`/api/private-videos/${id}/playback`)).json()) as { hls: string; thumbnail: string }
    expect(playback.hls.startsWith(`${other.stream.cdnUrl}/${auth.videoId}/`)).to.equal(true)
    expect((await fetch(playback.hls)).status).to.equal(200)

    // Deleting the document deletes the video in its library.
    expect((await cms.fetch(`/api/private-videos/${id}`, { method: 'DELETE' })).status).to.equal(200)
    expect(other.videos().map((v) => v.guid)).not.to.include(auth.videoId)
  })

  it('inherits nothing from the top-level options, and refuses a target of the wrong kind', () => {
    const resolved = resolveOptions(options)
    const privateZone = resolved.collections.get('private-files')!.storage!
    expect(privateZone.zoneName).to.equal('private-zone')
    expect(resolved.collections.get('media')!.storage).to.equal(resolved.storage)
    expect(resolved.collections.get('private-videos')!.stream!.mp4Fallback, 'not the top-level mp4Fallback: true').to.equal(false)
    const build = (collections: StorageHostPluginOptions['collections']) => () =>
      storageHostPlugin({ ...options, collections })({ collections: [{ slug: 'x', fields: [], upload: true }], secret: 's' } as unknown as Config)
    expect(build({ x: { library: options.stream!, target: 'storage' } })).to.throw(/targets storage, so it takes a zone, not a library/)
    expect(build({ x: { target: 'stream', zone: options.storage! } })).to.throw(/targets stream, so it takes a library, not a zone/)
    expect(build({ x: { target: 'storage', zone: { ...options.storage!, accessKey: '' } } })).to.throw(/collections\.x\.zone\.accessKey is missing/)
  })
})
