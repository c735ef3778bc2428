import { expect } from 'chai'
import { createHash, createHmac } from 'node:crypto'
import { Upload } from 'tus-js-client'
import type { UploadOptions } from 'tus-js-client'
import { startEmulator } from '../../src/emulator/index.js'
import type { RunningEmulator } from '../../src/emulator/index.js'
import { fakeMp4 } from './helpers/fakeMp4.js'
import { startWebhookReceiver } from './helpers/webhookReceiver.js'
import type { WebhookReceiver } from './helpers/webhookReceiver.js'

const LIBRARY_ID = 777
const API_KEY = 'tus-library-key'
const READ_ONLY_KEY = 'tus-readonly-key'

/** Computed here from the documented construction, not with the emulator's helper. */
function signature(videoId: string, expire: number, apiKey = API_KEY): string {
  return createHash('sha256').update(`${LIBRARY_ID}${apiKey}${expire}${videoId}`).digest('hex')
}

interface UploadOutcome {
  url: string | null
  error?: Error & { originalResponse?: { getStatus(): number } | null }
}

/** Runs a tus-js-client upload to the end (or its first error; no retries). */
function runUpload(file: Buffer, options: UploadOptions): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    const upload: Upload = new Upload(file, {
      retryDelays: null,
      ...options,
      onSuccess: () => resolve({ url: upload.url }),
      onError: (error) => resolve({ url: upload.url, error: error as UploadOutcome['error'] }),
    })
    upload.start()
  })
}

describe('emulator: TUS upload, encoding and webhooks', function () {
  let emulator: RunningEmulator
  let receiver: WebhookReceiver

  before(async () => {
    receiver = await startWebhookReceiver()
    emulator = await startEmulator({
      stream: { libraryId: LIBRARY_ID, apiKey: API_KEY, readOnlyKey: READ_ONLY_KEY, webhookUrl: receiver.url, encodingStepMs: 10 },
    })
  })
  after(async () => {
    await emulator.close()
    await receiver.close()
  })

  const createVideo = async (title: string): Promise<string> => {
    const res = await fetch(`${emulator.stream.apiBase}/library/${LIBRARY_ID}/videos`, {
      method: 'POST',
      headers: { AccessKey: API_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title }),
    })
    return ((await res.json()) as { guid: string }).guid
  }
  const authHeaders = (videoId: string, expire = Math.floor(Date.now() / 1000) + 3600, sig = signature(videoId, expire)) => ({
    AuthorizationSignature: sig,
    AuthorizationExpire: String(expire),
    VideoId: videoId,
    LibraryId: String(LIBRARY_ID),
  })
  const deliveriesFor = (guid: string) => receiver.deliveries.filter((d) => (JSON.parse(d.raw.toString('utf8')) as { VideoGuid: string }).VideoGuid === guid)

  it('refuses creation with a bad signature, an expired one, or for another library', async () => {
    const guid = await createVideo('Refused')
    const file = fakeMp4({ width: 640, height: 360 })
    const base = { endpoint: emulator.stream.tusEndpoint, metadata: { filetype: 'video/mp4', title: 'Refused' } }
    const expire = Math.floor(Date.now() / 1000) + 3600
    const forged = await runUpload(file, { ...base, headers: authHeaders(guid, expire, signature(guid, expire, 'guessed-key')) })
    expect(forged.error?.originalResponse?.getStatus()).to.equal(401)
    const past = Math.floor(Date.now() / 1000) - 10
    const expired = await runUpload(file, { ...base, headers: authHeaders(guid, past) })
    expect(expired.error?.originalResponse?.getStatus()).to.equal(401)
    const missing = await runUpload(file, { ...base, headers: {} })
    expect(missing.error?.originalResponse?.getStatus()).to.equal(401)
    const otherLibrary = await runUpload(file, { ...base, headers: { ...authHeaders(guid), LibraryId: '1' } })
    expect(otherLibrary.error?.originalResponse?.getStatus()).to.equal(401)
    const unknown = '11111111-2222-3333-4444-555555555555'
    const unknownVideo = await runUpload(file, { ...base, headers: authHeaders(unknown) })
    expect(unknownVideo.error?.originalResponse?.getStatus()).to.equal(404)
    expect(emulator.videos().find((v) => v.guid === guid)).to.include({ status: 0, storageSize: 0 })
  })

  it('answers the CORS preflight with the authorization headers allowed and the tus headers exposed', async () => {
    const res = await fetch(emulator.stream.tusEndpoint, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://cms.local',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorizationsignature,tus-resumable',
      },
    })
    expect(res.status).to.be.oneOf([200, 204])
    expect(res.headers.get('access-control-allow-origin')).to.be.oneOf(['*', 'http://cms.local'])
    expect(res.headers.get('access-control-allow-headers')).to.include('AuthorizationSignature')
    expect(res.headers.get('access-control-allow-headers')).to.include('LibraryId')
    expect(res.headers.get('access-control-expose-headers')).to.include('Upload-Offset')
    expect(res.headers.get('access-control-expose-headers')).to.include('Location')
  })

  it('uploads a video resumably, then encodes it with signed webhooks in order', async () => {
    const guid = await createVideo('Launch film')
    const file = fakeMp4({ width: 1920, height: 1080, duration: 12, mediaBytes: 1024 * 1024, moovAtEnd: true })
    const options: UploadOptions = {
      endpoint: emulator.stream.tusEndpoint,
      headers: authHeaders(guid),
      metadata: { filetype: 'video/mp4', title: 'Launch film' },
      chunkSize: 256 * 1024,
    }

    // First attempt: aborted after the first chunk, as a closed tab or a lost network would.
    const firstUrl = await new Promise<string>((resolve, reject) => {
      const upload: Upload = new Upload(file, {
        ...options,
        retryDelays: null,
        onChunkComplete: () => {
          void upload.abort().then(() => resolve(upload.url ?? ''))
        },
        onError: reject,
      })
      upload.start()
    })
    expect(firstUrl).to.match(new RegExp(`^${emulator.stream.tusEndpoint}/`))
    const head = await fetch(firstUrl, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } })
    const offset = Number(head.headers.get('upload-offset'))
    expect(offset).to.be.greaterThan(0).and.lessThan(file.length)
    expect(emulator.videos().find((v) => v.guid === guid)?.status).to.equal(0)

    // Second attempt resumes from the server's offset through the stored upload URL.
    let firstProgress: number | undefined
    const resumed = await runUpload(file, {
      ...options,
      uploadUrl: firstUrl,
      onProgress: (sent) => {
        firstProgress ??= sent
      },
    })
    expect(resumed.error).to.equal(undefined)
    expect(resumed.url).to.equal(firstUrl)
    expect(firstProgress).to.be.at.least(offset)

    const encoded = await emulator.whenEncoded(guid)
    expect(encoded).to.include({ status: 4, storageSize: file.length, hasMP4Fallback: true })

    // Webhooks: exact raw bytes signed with the read-only key, statuses in the host's order.
    const deliveries = deliveriesFor(guid)
    for (const delivery of deliveries) {
      expect(delivery.headers['x-hoststream-signature']).to.equal(createHmac('sha256', READ_ONLY_KEY).update(delivery.raw).digest('hex'))
      expect(delivery.headers['x-hoststream-signature-algorithm']).to.equal('hmac-sha256')
      expect(delivery.headers['x-hoststream-signature-version']).to.equal('v1')
      expect(delivery.headers['content-type']).to.equal('application/json')
      expect(JSON.parse(delivery.raw.toString('utf8'))).to.have.property('VideoLibraryId', LIBRARY_ID)
    }
    expect(deliveries.map((d) => (JSON.parse(d.raw.toString('utf8')) as { Status: number }).Status)).to.deep.equal([0, 1, 2, 4, 4, 4, 4, 4, 3])

    // The video object and its resolutions as the plugin will read them.
    const apiHeaders = { AccessKey: API_KEY }
    const video = (await (await fetch(`${emulator.stream.apiBase}/library/${LIBRARY_ID}/videos/${guid}`, { headers: apiHeaders })).json()) as Record<
      string,
      unknown
    >
    expect(video).to.include({ status: 4, width: 1920, height: 1080, length: 12, encodeProgress: 100, hasMP4Fallback: true, storageSize: file.length })
    expect(video.availableResolutions).to.equal('240p,360p,480p,720p,1080p')
    const resolutions = (await (
      await fetch(`${emulator.stream.apiBase}/library/${LIBRARY_ID}/videos/${guid}/resolutions`, { headers: apiHeaders })
    ).json()) as {
      success: boolean
      data: { mp4Resolutions: { resolution: string; path: string }[] }
    }
    expect(resolutions.success).to.equal(true)
    expect(resolutions.data.mp4Resolutions).to.deep.equal([240, 360, 480, 720].map((h) => ({ resolution: `${h}p`, path: `play_${h}p.mp4` })))

    // The stream pull zone.
    const cdn = `${emulator.stream.cdnUrl}/${guid}`
    const playlist = await fetch(`${cdn}/playlist.m3u8`)
    expect(playlist.status).to.equal(200)
    const text = await playlist.text()
    expect(text.startsWith('#EXTM3U\n')).to.equal(true)
    expect(text.match(/#EXT-X-STREAM-INF:BANDWIDTH=\d+,RESOLUTION=\d+x\d+/g)).to.have.length(5)
    expect(text).to.include('RESOLUTION=1920x1080').and.include('1080p/video.m3u8')
    const thumbnail = Buffer.from(await (await fetch(`${cdn}/thumbnail.jpg`)).arrayBuffer())
    expect(thumbnail.subarray(0, 3)).to.deep.equal(Buffer.from([0xff, 0xd8, 0xff]))
    expect(thumbnail.subarray(-2)).to.deep.equal(Buffer.from([0xff, 0xd9]))
    const preview = Buffer.from(await (await fetch(`${cdn}/preview.webp`)).arrayBuffer())
    expect(preview.toString('latin1', 0, 4) + preview.toString('latin1', 8, 12)).to.equal('RIFFWEBP')
    const mp4 = await fetch(`${cdn}/play_720p.mp4`)
    expect(mp4.headers.get('content-type')).to.equal('video/mp4')
    expect(Buffer.from(await mp4.arrayBuffer()).equals(file)).to.equal(true)
    expect((await fetch(`${cdn}/play_1080p.mp4`)).status, 'no MP4 fallback above 720p').to.equal(404)
    expect(Buffer.from(await (await fetch(`${cdn}/original`)).arrayBuffer()).equals(file)).to.equal(true)

    // Its bytes cannot be deleted through TUS, and it takes no second upload.
    const terminate = await fetch(firstUrl, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' } })
    expect(terminate.status).to.be.within(400, 499)
    expect((await fetch(`${cdn}/original`)).status).to.equal(200)
    const again = await runUpload(file, { ...options, uploadUrl: undefined })
    expect(again.error?.originalResponse?.getStatus()).to.equal(403)
  })

  it('lets an unfinished upload be terminated, then accepts a new one for the same video', async () => {
    const guid = await createVideo('Terminated')
    const file = fakeMp4({ width: 640, height: 360, mediaBytes: 200_000 })
    const url = await new Promise<string>((resolve, reject) => {
      const upload: Upload = new Upload(file, {
        endpoint: emulator.stream.tusEndpoint,
        headers: authHeaders(guid),
        metadata: { filetype: 'video/mp4', title: 'Terminated' },
        chunkSize: 64 * 1024,
        retryDelays: null,
        onChunkComplete: () => void upload.abort().then(() => resolve(upload.url ?? '')),
        onError: reject,
      })
      upload.start()
    })
    expect(emulator.videos().find((v) => v.guid === guid)?.storageSize).to.be.at.most(file.length)
    expect((await fetch(url, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' } })).status).to.equal(204)
    expect((await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } })).status).to.equal(404)
    expect(emulator.videos().find((v) => v.guid === guid)).to.include({ status: 0, storageSize: 0 })
    const again = await runUpload(file, {
      endpoint: emulator.stream.tusEndpoint,
      headers: authHeaders(guid),
      metadata: { filetype: 'video/mp4', title: 'Terminated' },
    })
    expect(again.error).to.equal(undefined)
    expect((await emulator.whenEncoded(guid)).status).to.equal(4)
  })

  it('never upscales: a 640×360 source gets 240p and 360p', async () => {
    const guid = await createVideo('Small')
    const file = fakeMp4({ width: 640, height: 360, tkhdVersion: 1 })
    const done = await runUpload(file, {
      endpoint: emulator.stream.tusEndpoint,
      headers: authHeaders(guid),
      metadata: { filetype: 'video/mp4', title: 'Small' },
    })
    expect(done.error).to.equal(undefined)
    const video = await emulator.whenEncoded(guid)
    expect(video.availableResolutions).to.deep.equal(['240p', '360p'])
    expect((await fetch(`${emulator.stream.cdnUrl}/${guid}/play_480p.mp4`)).status).to.equal(404)
    expect((await fetch(`${emulator.stream.cdnUrl}/${guid}/play_360p.mp4`)).status).to.equal(200)
  })

  it('fails a file that is not a video: Queued, Processing, Failed', async () => {
    const guid = await createVideo('Not a video')
    const file = Buffer.from('%PDF-1.7 this is a document, not a video\n'.repeat(50))
    const done = await runUpload(file, {
      endpoint: emulator.stream.tusEndpoint,
      headers: authHeaders(guid),
      metadata: { filetype: 'video/mp4', title: 'Not a video' },
    })
    expect(done.error).to.equal(undefined)
    const video = await emulator.whenEncoded(guid)
    expect(video.status).to.equal(5)
    expect(deliveriesFor(guid).map((d) => (JSON.parse(d.raw.toString('utf8')) as { Status: number }).Status)).to.deep.equal([0, 1, 5])
    expect((await fetch(`${emulator.stream.cdnUrl}/${guid}/playlist.m3u8`)).status).to.equal(404)
  })

  it('retries a callback the receiver failed, keeping the order', async () => {
    const guid = await createVideo('Retried')
    receiver.failNext(2)
    const done = await runUpload(fakeMp4({ width: 426, height: 240 }), {
      endpoint: emulator.stream.tusEndpoint,
      headers: authHeaders(guid),
      metadata: { filetype: 'video/mp4', title: 'Retried' },
    })
    expect(done.error).to.equal(undefined)
    await emulator.whenEncoded(guid)
    const deliveries = deliveriesFor(guid)
    const statusOf = (d: { raw: Buffer }) => (JSON.parse(d.raw.toString('utf8')) as { Status: number }).Status
    expect(deliveries.map((d) => [statusOf(d), d.answered])).to.deep.equal([
      [0, 500],
      [0, 500],
      [0, 200],
      [1, 200],
      [2, 200],
      [4, 200],
      [3, 200],
    ])
  })
})
