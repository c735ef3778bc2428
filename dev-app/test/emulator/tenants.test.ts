/**
 * Several storage zones and video libraries on one emulator (`storage.extraZones`, `stream.extraLibraries`), as
 * an account holds them: each zone has its own password, files, listing and pull zone; each library its own
 * keys, videos, TUS authorisation, pull zone and webhooks (its `VideoLibraryId`, signed with its read-only
 * key); nothing of one is reachable through the other; a restart in the same data folder keeps both.
 */
import { expect } from 'chai'
import { createHash, createHmac } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Upload } from 'tus-js-client'
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js'
import { fakeMp4 } from './helpers/fakeMp4.js'
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhookReceiver.js'

const ZONE = { accessKey: 'public-zone-key', zoneName: 'public-zone' }
const PRIVATE_ZONE = { accessKey: 'private-zone-key', zoneName: 'private-zone' }
const LIBRARY = { apiKey: 'library-1-key', libraryId: 1001, readOnlyKey: 'library-1-readonly' }
const PRIVATE_LIBRARY = { apiKey: 'library-2-key', libraryId: 2002, readOnlyKey: 'library-2-readonly' }

describe('emulator: several storage zones and video libraries', function () {
  this.timeout(60_000)
  let dataDir: string
  let receiver: WebhookReceiver
  let emulator: RunningEmulator

  const start = () =>
    startEmulator({
      dataDir,
      storage: { ...ZONE, extraZones: [PRIVATE_ZONE] },
      stream: { ...LIBRARY, encodingStepMs: 10, extraLibraries: [PRIVATE_LIBRARY], webhookUrl: receiver.url },
    })

  before(async function () {
    dataDir = mkdtempSync(path.join(tmpdir(), 'emulator-tenants-'))
    receiver = await startWebhookReceiver()
    emulator = await start()
  })
  after(async function () {
    await emulator?.close()
    await receiver?.close()
    rmSync(dataDir, { force: true, recursive: true })
  })

  const put = (zone: string, key: string, file: string, body: string) =>
    fetch(`${emulator.storage.endpoint}/${zone}/${file}`, { body, headers: { AccessKey: key }, method: 'PUT' })

  it('lists every zone and library, each with its own CDN URL', function () {
    expect(emulator.zones.map(({ cdnUrl, zoneName }) => [zoneName, cdnUrl])).to.deep.equal([
      ['public-zone', `${emulator.url}/cdn/public-zone`],
      ['private-zone', `${emulator.url}/cdn/private-zone`],
    ])
    expect(emulator.libraries.map(({ cdnUrl, libraryId }) => [libraryId, cdnUrl])).to.deep.equal([
      [1001, `${emulator.url}/stream-cdn/1001`],
      [2002, `${emulator.url}/stream-cdn/2002`],
    ])
  })

  it('keeps each zone apart: its own password, files, listing and pull zone', async function () {
    expect((await put('private-zone', PRIVATE_ZONE.accessKey, 'docs/contract.txt', 'private words')).status).to.equal(201)
    expect((await put('public-zone', ZONE.accessKey, 'docs/poster.txt', 'public words')).status).to.equal(201)
    // One zone's password does not open the other.
    expect((await put('private-zone', ZONE.accessKey, 'docs/forged.txt', 'x')).status).to.equal(401)
    expect((await put('public-zone', PRIVATE_ZONE.accessKey, 'docs/forged.txt', 'x')).status).to.equal(401)
    const listing = await fetch(`${emulator.storage.endpoint}/private-zone/docs/`, { headers: { AccessKey: PRIVATE_ZONE.accessKey } })
    const objects = (await listing.json()) as Array<{ ObjectName: string; StorageZoneName: string; Checksum: string }>
    expect(objects.map((o) => [o.ObjectName, o.StorageZoneName, o.Checksum])).to.deep.equal([
      ['contract.txt', 'private-zone', createHash('sha256').update('private words').digest('hex').toUpperCase()],
    ])
    expect(await (await fetch(`${emulator.url}/cdn/private-zone/docs/contract.txt`)).text()).to.equal('private words')
    expect((await fetch(`${emulator.url}/cdn/public-zone/docs/contract.txt`)).status).to.equal(404)
    expect((await fetch(`${emulator.url}/cdn/another-zone/docs/contract.txt`)).status).to.equal(404)
    expect(emulator.storedFilePath('docs/contract.txt', 'private-zone')).to.be.a('string')
    expect(emulator.storedFilePath('docs/contract.txt')).to.equal(undefined)
  })

  it('keeps each library apart: keys, videos, TUS, pull zone, and webhooks signed with its own key', async function () {
    const create = (library: typeof LIBRARY, key = library.apiKey) =>
      fetch(`${emulator.stream.apiBase}/library/${library.libraryId}/videos`, {
        body: JSON.stringify({ title: `A video of ${library.libraryId}` }),
        headers: { AccessKey: key, 'Content-Type': 'application/json' },
        method: 'POST',
      })
    expect((await create(PRIVATE_LIBRARY, LIBRARY.apiKey)).status, "library 1's key on library 2").to.equal(401)
    const created = await create(PRIVATE_LIBRARY)
    expect(created.status).to.equal(200)
    const { guid } = (await created.json()) as { guid: string }
    // Library 1 does not have it.
    expect((await fetch(`${emulator.stream.apiBase}/library/1001/videos/${guid}`, { headers: { AccessKey: LIBRARY.apiKey } })).status).to.equal(404)

    const expire = Math.floor(Date.now() / 1000) + 3600
    const headersFor = (library: typeof LIBRARY) => ({
      AuthorizationExpire: String(expire),
      AuthorizationSignature: createHash('sha256').update(`${library.libraryId}${library.apiKey}${expire}${guid}`).digest('hex'),
      LibraryId: String(library.libraryId),
      VideoId: guid,
    })
    const upload = (headers: Record<string, string>) =>
      new Promise<Error | undefined>((resolve) => {
        new Upload(fakeMp4({ height: 360, width: 640 }), {
          endpoint: emulator.stream.tusEndpoint,
          headers,
          metadata: { filetype: 'video/mp4', title: 'private' },
          onError: (error) => resolve(error),
          onSuccess: () => resolve(undefined),
          retryDelays: null,
        }).start()
      })
    // Signed for library 1: library 1 has no such video.
    expect(String(await upload(headersFor(LIBRARY)))).to.match(/response code: 404/)
    expect(await upload(headersFor(PRIVATE_LIBRARY))).to.equal(undefined)
    const encoded = await emulator.whenEncoded(guid)
    expect(encoded).to.include({ libraryId: 2002, status: 4 })

    const playlist = await fetch(`${emulator.url}/stream-cdn/2002/${guid}/playlist.m3u8`)
    expect(playlist.status).to.equal(200)
    expect((await fetch(`${emulator.url}/stream-cdn/1001/${guid}/playlist.m3u8`)).status).to.equal(404)

    const callbacks = receiver.deliveries.filter((d) => JSON.parse(d.raw.toString()).VideoGuid === guid)
    expect(callbacks.length).to.be.greaterThan(0)
    for (const callback of callbacks) {
      expect(JSON.parse(callback.raw.toString())).to.include({ VideoLibraryId: 2002 })
      expect(callback.headers['x-hoststream-signature']).to.equal(createHmac('sha256', PRIVATE_LIBRARY.readOnlyKey).update(callback.raw).digest('hex'))
    }
  })

  it('keeps both zones and both libraries across a restart in the same data folder', async function () {
    const guids = emulator.videos().map((v) => [v.libraryId, v.guid])
    await emulator.close()
    emulator = await start()
    expect(emulator.videos().map((v) => [v.libraryId, v.guid])).to.deep.equal(guids)
    const listing = await fetch(`${emulator.storage.endpoint}/private-zone/docs/`, { headers: { AccessKey: PRIVATE_ZONE.accessKey } })
    const [object] = (await listing.json()) as Array<{ Checksum: string | null }>
    expect(object?.Checksum, 'the checksum of a file written before the restart').to.be.a('string')
  })

  it('refuses a zone or a library configured twice', async function () {
    const twice = (options: Parameters<typeof startEmulator>[0]) =>
      startEmulator(options).then(
        (running) => running.close().then(() => 'started'),
        (error: Error) => error.message,
      )
    expect(await twice({ storage: { extraZones: [{ zoneName: 'dev-zone' }] } })).to.equal('emulator: storage zone "dev-zone" is configured twice')
    expect(await twice({ stream: { extraLibraries: [{ libraryId: 1001 }] } })).to.equal('emulator: video library 1001 is configured twice')
  })
})
