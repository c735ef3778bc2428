/**
 * `GET /api/videos/{id}/playback` over real HTTP against the emulator, with a video that went the whole
 * way (tus-auth, TUS upload, document saved, encoding callbacks to `finished`): plain URLs without token
 * authentication, short-lived signed URLs that the emulator's stream pull zone accepts (and refuses once
 * tampered or stripped) with it; 403 and no URL for callers the collection's read access refuses; 404 for
 * a missing document or an unfinished video. Also `thumbnailTime: 0` reaching the host as 0.
 */
import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import type { PlaybackUrls, TusAuthResponse } from '../src/types.js'
import { saveVideo, tusAuth } from './support/api.js'
import { uploadFinishedVideo, type Uploaded } from './support/finishedVideo.js'
import { headOf, mp4Bytes } from './support/media.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

const playback = (cms: RunningCms, id: number | string, auth?: string | false) => cms.fetch(`/api/videos/${id}/playback`, { auth })

describe('playback URLs', function () {
  this.timeout(90_000)

  describe('without token authentication (and thumbnailTime: 0)', () => {
    let emu: RunningEmulator
    let cms: RunningCms
    let video: Uploaded

    before(async () => {
      emu = await startEmulator({ stream: { encodingStepMs: 10 } })
      const base = emulatorOptions(emu)
      cms = await startCms({ ...base, stream: { ...base.stream!, thumbnailTime: 0 } })
      emu.setWebhookUrl(`${cms.url}/api${WEBHOOK_PATH}`)
      video = await uploadFinishedVideo(cms, emu, 'plain')
    })
    after(async () => {
      await cms?.close()
      await emu?.close()
    })

    it('answers plain pull-zone URLs that play, with every MP4 rendition and no expiry', async () => {
      const res = await playback(cms, video.docId)
      expect(res.status, await res.clone().text()).to.equal(200)
      expect(res.headers.get('cache-control')).to.include('no-store')
      const body = (await res.json()) as PlaybackUrls
      const base = `${emu.stream.cdnUrl}/${video.videoId}`
      expect(body.hls).to.equal(`${base}/playlist.m3u8`)
      expect(body.thumbnail).to.equal(`${base}/thumbnail.jpg`)
      expect(body.expiresAt).to.equal(undefined)
      const host = emu.videos().find((v) => v.guid === video.videoId)!
      expect(body.mp4.map((r) => r.resolution)).to.have.members(host.availableResolutions.filter((r) => Number.parseInt(r, 10) <= 720))
      expect(body.mp4.length).to.be.greaterThan(0)
      const playlist = await fetch(body.hls!)
      expect(playlist.status).to.equal(200)
      expect(await playlist.text()).to.match(/^#EXTM3U/)
      expect((await fetch(body.thumbnail!)).headers.get('content-type')).to.equal('image/jpeg')
      for (const r of body.mp4) expect((await fetch(r.url)).status, r.url).to.equal(200)
    })

    it('thumbnailTime: 0 is sent to the host as 0, not left to its default', async () => {
      expect(video.thumbnailTime).to.equal(0)
      expect(emu.videos().find((v) => v.guid === video.videoId)?.thumbnailTime).to.equal(0)
    })

    it('403 in the plugin error shape and no URL when the read access refuses (false, or a query hiding the document)', async () => {
      const read = cms.payload.collections.videos!.config.access
      const original = read.read
      // Anonymous: refused; the other user: only documents titled "shared" (a query-style access).
      read.read = (({ req }: { req: { user?: { email?: string } } }) =>
        !req.user ? false : req.user.email === 'other@example.com' ? { title: { equals: 'shared' } } : true) as never
      try {
        for (const auth of [false, cms.otherToken] as const) {
          const res = await playback(cms, video.docId, auth)
          const text = await res.text()
          expect(res.status, text).to.equal(403)
          expect(JSON.parse(text)).to.have.property('errors').with.length(1)
          expect(text).not.to.include(video.videoId)
          expect(text).not.to.include(emu.stream.cdnUrl)
        }
        expect((await playback(cms, video.docId)).status).to.equal(200)
      } finally {
        read.read = original
      }
    })

    it('404 for a missing document and for a document whose video has not finished', async () => {
      const missing = await playback(cms, 999_999)
      expect(missing.status).to.equal(404)
      expect(await missing.json()).to.have.property('errors')
      const bytes = mp4Bytes(16 * 1024)
      const auth = (await (
        await tusAuth(cms, {
          collection: 'videos',
          filename: 'pending.mp4',
          filesize: bytes.length,
          filetype: 'video/mp4',
          head: headOf(bytes),
          title: 'pending',
        })
      ).json()) as TusAuthResponse
      const saved = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: bytes.length, videoToken: auth.videoToken })
      const pending = ((await saved.json()) as { doc: { id: number } }).doc.id
      const res = await playback(cms, pending)
      expect(res.status).to.equal(404)
      expect(await res.text()).not.to.include(auth.videoId)
    })
  })

  describe('with token authentication on the stream pull zone', () => {
    let emu: RunningEmulator
    let cms: RunningCms
    let video: Uploaded

    before(async () => {
      emu = await startEmulator({ stream: { encodingStepMs: 10, tokenAuthKey: 'stream-token-key' } })
      const base = emulatorOptions(emu)
      cms = await startCms({ ...base, stream: { ...base.stream!, tokenAuth: { expiresIn: 300, key: 'stream-token-key' } } })
      emu.setWebhookUrl(`${cms.url}/api${WEBHOOK_PATH}`)
      video = await uploadFinishedVideo(cms, emu, 'signed')
    })
    after(async () => {
      await cms?.close()
      await emu?.close()
    })

    it('answers signed URLs that expire with expiresIn and that the pull zone accepts', async () => {
      const before = Date.now()
      const res = await playback(cms, video.docId)
      expect(res.status, await res.clone().text()).to.equal(200)
      const body = (await res.json()) as PlaybackUrls
      const expiresAt = Date.parse(body.expiresAt!)
      expect(expiresAt).to.be.within(before + 299_000, Date.now() + 301_000)
      expect(body.hls).to.include('/bcdn_token=HS256-')
      expect(body.thumbnail).to.include('token=HS256-')
      expect(body.mp4.length).to.be.greaterThan(0)
      for (const url of [body.hls!, body.thumbnail!, ...body.mp4.map((r) => r.url)]) {
        expect(url).not.to.include('stream-token-key')
        expect((await fetch(url)).status, url).to.equal(200)
      }
      // The HLS token is a directory token: files under the video's folder (renditions, segments) inherit it.
      expect((await fetch(body.hls!.replace('/playlist.m3u8', '/thumbnail.jpg'))).status).to.equal(200)
    })

    it('the pull zone refuses the same URLs unsigned, tampered or moved to another video', async () => {
      const body = (await (await playback(cms, video.docId)).json()) as PlaybackUrls
      const plain = `${emu.stream.cdnUrl}/${video.videoId}/playlist.m3u8`
      expect((await fetch(plain)).status).to.equal(403)
      // A later expiry than the one signed: the token no longer matches.
      const tampered = new URL(body.thumbnail!)
      tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 60))
      expect((await fetch(tampered)).status).to.equal(403)
      const other = await uploadFinishedVideo(cms, emu, 'other')
      expect((await fetch(body.hls!.replaceAll(video.videoId, other.videoId))).status).to.equal(403)
      expect((await fetch(body.mp4[0]!.url.replace(video.videoId, other.videoId))).status).to.equal(403)
    })
  })
})
