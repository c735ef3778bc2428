/**
 * The webhook endpoint with signed callbacks over real HTTP: good callbacks move the document through the
 * encoding statuses; forged, unsigned, wrongly versioned or foreign-library callbacks are refused with the
 * statuses DESIGN.md decides; replayed and out-of-order callbacks are harmless.
 */
import { createHmac } from 'node:crypto'

import { expect } from 'chai'
import { startEmulator, webhookSignatureHeaders, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import type { TusAuthResponse } from '../src/types.js'
import { saveVideo, tusAuth } from './support/api.js'
import { headOf, mp4Bytes } from './support/media.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

describe('stream webhook', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  let docId: number
  let videoId: string

  const sign = (raw: string, key = emu.stream.readOnlyKey) => createHmac('sha256', key).update(raw).digest('hex')
  const post = (raw: string, headers: Record<string, string>) =>
    fetch(`${cms.url}/api${WEBHOOK_PATH}`, { body: raw, headers: { 'Content-Type': 'application/json', ...headers }, method: 'POST' })
  const good = (body: Record<string, unknown>) => {
    const raw = JSON.stringify(body)
    return post(raw, { 'X-HostStream-Signature': sign(raw), 'X-HostStream-Signature-Algorithm': 'hmac-sha256', 'X-HostStream-Signature-Version': 'v1' })
  }
  const status = async () =>
    ((await cms.payload.findByID({ collection: 'videos', depth: 0, id: docId })) as unknown as { hostData: { stream: { status: string } } }).hostData.stream
      .status

  before(async () => {
    emu = await startEmulator()
    cms = await startCms(emulatorOptions(emu))
  })
  // Each test gets its own video document (status "uploading"), so none depends on another's callbacks.
  beforeEach(async () => {
    const video = mp4Bytes(16 * 1024)
    const auth = (await (
      await tusAuth(cms, { collection: 'videos', filename: 'w.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'W' })
    ).json()) as TusAuthResponse
    const saved = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: video.length, videoToken: auth.videoToken })
    expect(saved.status).to.equal(201)
    docId = ((await saved.json()) as { doc: { id: number } }).doc.id
    videoId = auth.videoId
  })
  after(async () => {
    await cms?.close()
    await emu?.close()
  })

  it('acknowledges a good callback with 200 and updates the status (signature as the emulator computes it)', async () => {
    expect(await status()).to.equal('uploading')
    const raw = JSON.stringify({ Status: 0, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })
    const res = await post(raw, webhookSignatureHeaders(raw, emu.stream.readOnlyKey))
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({ message: 'Acknowledged' })
    expect(await status()).to.equal('queued')
  })

  it('401 for a missing or forged signature, or one over other bytes; nothing changes', async () => {
    expect(await status()).to.equal('uploading')
    const raw = JSON.stringify({ Status: 1, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })
    const base = { 'X-HostStream-Signature-Algorithm': 'hmac-sha256', 'X-HostStream-Signature-Version': 'v1' }
    for (const headers of [
      base,
      { ...base, 'X-HostStream-Signature': sign(raw, 'wrong-key') },
      { ...base, 'X-HostStream-Signature': sign(raw).toUpperCase() },
      { ...base, 'X-HostStream-Signature': sign(raw).slice(0, 10) },
      // Same JSON, different bytes: only the exact raw body counts.
      { ...base, 'X-HostStream-Signature': sign(JSON.stringify(JSON.parse(raw), null, 2)) },
    ]) {
      const res = await post(raw, headers as Record<string, string>)
      expect(res.status).to.equal(401)
      expect(((await res.json()) as { errors: unknown[] }).errors).to.have.length(1)
    }
    expect(await status()).to.equal('uploading')
  })

  it('400 for a wrong algorithm or version', async () => {
    const raw = JSON.stringify({ Status: 1, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })
    const sig = sign(raw)
    expect(
      (await post(raw, { 'X-HostStream-Signature': sig, 'X-HostStream-Signature-Algorithm': 'hmac-sha1', 'X-HostStream-Signature-Version': 'v1' })).status,
    ).to.equal(400)
    expect(
      (await post(raw, { 'X-HostStream-Signature': sig, 'X-HostStream-Signature-Algorithm': 'hmac-sha256', 'X-HostStream-Signature-Version': 'v2' })).status,
    ).to.equal(400)
    expect((await post(raw, { 'X-HostStream-Signature': sig, 'X-HostStream-Signature-Algorithm': 'hmac-sha256' })).status).to.equal(400)
    expect(await status()).to.equal('uploading')
  })

  it('401 for an unknown library, even when correctly signed', async () => {
    const res = await good({ Status: 3, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId + 1 })
    expect(res.status).to.equal(401)
    expect(await status()).to.equal('uploading')
  })

  it('follows every encoding status, ignores out-of-order callbacks and never leaves finished', async () => {
    for (const [s, name] of [
      [1, 'processing'],
      [2, 'encoding'],
      [4, 'playable'],
    ] as const) {
      expect((await good({ Status: s, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })).status).to.equal(200)
      expect(await status()).to.equal(name)
    }
    // Late "encoding" after "playable": ignored.
    expect((await good({ Status: 2, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })).status).to.equal(200)
    expect(await status()).to.equal('playable')
    expect((await good({ Status: 3, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })).status).to.equal(200)
    expect(await status()).to.equal('finished')
    for (const late of [0, 1, 2, 4, 5, 9]) {
      expect((await good({ Status: late, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })).status).to.equal(200)
      expect(await status(), `after late ${late}`).to.equal('finished')
    }
  })

  it('is idempotent for replayed callbacks and acknowledges unknown videos', async () => {
    expect((await good({ Status: 3, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })).status).to.equal(200)
    expect(await status()).to.equal('finished')
    const before = await cms.payload.findByID({ collection: 'videos', depth: 0, id: docId })
    for (let i = 0; i < 3; i++) expect((await good({ Status: 3, VideoGuid: videoId, VideoLibraryId: emu.stream.libraryId })).status).to.equal(200)
    const after = await cms.payload.findByID({ collection: 'videos', depth: 0, id: docId })
    expect(after.updatedAt).to.equal(before.updatedAt)
    const unknown = await good({ Status: 3, VideoGuid: '00000000-0000-0000-0000-000000000000', VideoLibraryId: emu.stream.libraryId })
    expect(unknown.status).to.equal(200)
  })

  it('400 for a signed body that is not a callback', async () => {
    expect((await good({ hello: 'world' })).status).to.equal(400)
  })
})
