/**
 * A save without a new file (Payload 3.90, REST over real HTTP, the emulator's request log as evidence)
 * never reads, re-uploads or touches the stored file and never drops `hostData`: for a storage document
 * (object bytes and file identity unchanged, no storage request at all) and for a finished video (no
 * stream API or TUS request, `hostData.stream` as before, the host still holds one video). API writes of
 * the plugin-only `resolutions` are ignored; a callback for a video no document holds changes nothing.
 */
import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'

import { expect } from 'chai'
import { startEmulator, webhookSignatureHeaders, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import type { TusAuthResponse } from '../src/types.js'
import { multipart, saveVideo, tusAuth } from './support/api.js'
import { headOf, mp4Bytes, pngBytes } from './support/media.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'
import { startTus } from './support/tus.js'

describe('a save without a new file', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  /** One line per emulator request: `METHOD /path status`. */
  const requests: string[] = []
  const requestsSince = (n: number, prefix: RegExp) => requests.slice(n).filter((line) => prefix.test(line))

  before(async () => {
    emu = await startEmulator({ log: (line) => requests.push(line.replace(/^\[host-emulator\] /, '')), stream: { encodingStepMs: 10 } })
    cms = await startCms(emulatorOptions(emu))
    emu.setWebhookUrl(`${cms.url}/api${WEBHOOK_PATH}`)
  })
  after(async () => {
    await cms?.close()
    await emu?.close()
  })

  it('keeps a stored file untouched: no storage request, same bytes and file, same metadata', async () => {
    const created = await cms.fetch('/api/media', { body: multipart(await pngBytes(), 'kept.png', 'image/png', { alt: 'first' }), method: 'POST' })
    expect(created.status).to.equal(201)
    const doc = ((await created.json()) as { doc: Record<string, unknown> & { id: number } }).doc
    const path = emu.storedFilePath('kept.png')!
    const before = {
      hash: createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
      stat: await stat(path),
    }
    const mark = requests.length

    for (const body of [{ alt: 'second' }, { alt: 'third', filename: doc.filename }]) {
      const res = await cms.fetch(`/api/media/${doc.id}`, { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' }, method: 'PATCH' })
      expect(res.status, await res.clone().text()).to.equal(200)
    }
    const after = (await cms.payload.findByID({ collection: 'media', depth: 0, id: doc.id })) as unknown as Record<string, unknown>
    expect(after.alt).to.equal('third')
    for (const field of ['filename', 'filesize', 'mimeType', 'width', 'height', 'sizes', 'url', 'prefix', '_objectKey'])
      expect(after[field], field).to.deep.equal(doc[field])
    expect(requestsSince(mark, /\/(storage|s3|cdn)\//), 'no read or write on the storage host').to.deep.equal([])
    const now = await stat(path)
    expect(
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
    ).to.equal(before.hash)
    expect([now.ino, now.mtimeMs, now.size]).to.deep.equal([before.stat.ino, before.stat.mtimeMs, before.stat.size])
  })

  it('keeps a finished video: hostData unchanged, no stream API or TUS request, still one video on the host', async () => {
    const bytes = mp4Bytes(32 * 1024)
    const auth = (await (
      await tusAuth(cms, { collection: 'videos', filename: 'kept.mp4', filesize: bytes.length, filetype: 'video/mp4', head: headOf(bytes), title: 'kept' })
    ).json()) as TusAuthResponse
    const saved = await saveVideo(cms, {
      filename: auth.filename!,
      signedReceipt: auth.signedReceipt,
      size: bytes.length,
      title: 'kept',
      videoToken: auth.videoToken,
    })
    expect(saved.status).to.equal(201)
    const id = ((await saved.json()) as { doc: { id: number } }).doc.id
    await startTus(emu.stream.tusEndpoint, auth, bytes).done
    await emu.whenEncoded(auth.videoId)
    const before = (await cms.payload.findByID({ collection: 'videos', depth: 0, id })) as unknown as {
      hostData: { stream: Record<string, unknown> }
      filename: string
    }
    expect(before.hostData.stream.status).to.equal('finished')
    expect(before.hostData.stream.resolutions).to.be.an('array').that.is.not.empty
    const videos = emu.videos().length
    const mark = requests.length

    const res = await cms.fetch(`/api/videos/${id}`, {
      body: JSON.stringify({ title: 'renamed' }),
      headers: { 'Content-Type': 'application/json' },
      method: 'PATCH',
    })
    expect(res.status, await res.clone().text()).to.equal(200)
    const after = (await cms.payload.findByID({ collection: 'videos', depth: 0, id })) as unknown as {
      hostData: { stream: Record<string, unknown> }
      filename: string
      title: string
    }
    expect(after.title).to.equal('renamed')
    expect(after.filename).to.equal(before.filename)
    expect(after.hostData).to.deep.equal(before.hostData)
    expect(requestsSince(mark, /\/(stream|tusupload|storage)/), 'nothing sent to the streaming host').to.deep.equal([])
    expect(emu.videos().length).to.equal(videos)
    expect(emu.videos().find((v) => v.guid === auth.videoId)?.storageSize).to.equal(bytes.length)

    // An API write of the plugin-only rows is ignored, never applied nor able to empty them.
    const forged = { hostData: { stream: { resolutions: [{ resolution: '4320p', url: 'https://elsewhere.example/x.mp4' }] } } }
    const write = await cms.fetch(`/api/videos/${id}`, { body: JSON.stringify(forged), headers: { 'Content-Type': 'application/json' }, method: 'PATCH' })
    expect(write.status).to.equal(200)
    const kept = (await cms.payload.findByID({ collection: 'videos', depth: 0, id })) as unknown as { hostData: unknown; updatedAt: string }
    expect(kept.hostData).to.deep.equal(before.hostData)

    // A signed callback for a video no document holds: acknowledged, nothing changed.
    const raw = JSON.stringify({ Status: 3, VideoGuid: '00000000-0000-4000-8000-000000000000', VideoLibraryId: emu.stream.libraryId })
    const hook = await fetch(`${cms.url}/api${WEBHOOK_PATH}`, {
      body: raw,
      headers: { 'Content-Type': 'application/json', ...webhookSignatureHeaders(raw, emu.stream.readOnlyKey) },
      method: 'POST',
    })
    expect(hook.status).to.equal(200)
    const untouched = (await cms.payload.findByID({ collection: 'videos', depth: 0, id })) as unknown as { hostData: unknown; updatedAt: string }
    expect(untouched.updatedAt).to.equal(kept.updatedAt)
    expect(untouched.hostData).to.deep.equal(before.hostData)
  })
})
