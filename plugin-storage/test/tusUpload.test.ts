/**
 * A video through the whole browser flow against the emulator over real HTTP: tus-auth, a tus-js-client
 * upload interrupted and resumed (re-authorised with videoId + videoToken), the document saved with its
 * receipt and token, encoding callbacks from the host updating it to `finished` with MP4 fallback
 * resolutions, then deleted (video gone upstream). Forged and foreign tokens are refused.
 */
import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import { resolveOptions, sweepOrphanVideos } from '../src/index.js'
import type { TusAuthResponse } from '../src/types.js'
import { headOf, mp4Bytes } from './support/media.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'
import { saveVideo, tusAuth } from './support/api.js'
import { startTus } from './support/tus.js'
import { waitFor } from './support/waitFor.js'

interface VideoDoc {
  id: number
  filename: string
  hostData: { stream: Record<string, unknown> & { videoId: string; status: string; resolutions?: Array<{ resolution: string; url: string }> } }
}

describe('TUS video upload through tus-auth', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms

  before(async () => {
    emu = await startEmulator({ stream: { encodingStepMs: 50 } })
    cms = await startCms(emulatorOptions(emu))
    emu.setWebhookUrl(`${cms.url}/api${WEBHOOK_PATH}`)
  })
  after(async () => {
    await cms?.close()
    await emu?.close()
  })

  it('uploads, resumes after an interruption, saves the document with its token and follows encoding to the end', async () => {
    const video = mp4Bytes(512 * 1024)
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
    expect(auth.type).to.equal('upload')
    expect(auth.libraryId).to.equal(emu.stream.libraryId)
    expect(auth.thumbnailTime).to.equal(1500)
    expect(auth.filename).to.match(/\.mp4$/)
    expect(auth.signedReceipt).to.be.a('string')
    expect(auth.authorizationExpire).to.be.greaterThan(Date.now() / 1000)
    expect(JSON.stringify(auth)).not.to.include(emu.stream.apiKey)

    // First attempt: abort once about a third is on the host.
    let aborted = false
    const first = startTus(emu.stream.tusEndpoint, auth, video, {
      onProgress: (sent, total, upload) => {
        if (!aborted && sent >= total / 3) {
          aborted = true
          void upload.abort()
        }
      },
    })
    const interrupted = await Promise.race([first.done.then(() => 'finished'), new Promise((r) => setTimeout(() => r('aborted'), 1500))])
    expect(interrupted).to.equal('aborted')
    const uploadUrl = first.upload.url!
    const head = await fetch(uploadUrl, { headers: { 'Tus-Resumable': '1.0.0' }, method: 'HEAD' })
    const offset = Number(head.headers.get('upload-offset'))
    expect(offset, 'part of the file is on the host').to.be.greaterThan(0).and.lessThan(video.length)

    // Resume: re-authorise with videoId + videoToken, continue from the stored offset.
    const again = await tusAuth(cms, {
      collection: 'videos',
      filename: 'My Clip.mp4',
      filesize: video.length,
      filetype: 'video/mp4',
      videoId: auth.videoId,
      videoToken: auth.videoToken,
    })
    expect(again.status).to.equal(200)
    const resumed = (await again.json()) as TusAuthResponse
    expect(resumed.type).to.equal('upload')
    expect(resumed.videoId).to.equal(auth.videoId)
    let firstReported = -1
    const second = startTus(emu.stream.tusEndpoint, resumed, video, {
      onProgress: (sent) => {
        if (firstReported < 0) firstReported = sent
      },
      uploadUrl,
    })
    await second.done
    expect(firstReported, 'continued from the offset, not from 0').to.be.greaterThan(64 * 1024 - 1)
    expect(emu.videos().find((v) => v.guid === auth.videoId)!.storageSize).to.equal(video.length)

    // Save the document with the receipt and the token; the bytes never pass through the CMS.
    const saved = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: video.length, videoToken: auth.videoToken })
    expect(saved.status, await saved.clone().text()).to.equal(201)
    const { doc } = (await saved.json()) as { doc: VideoDoc }
    expect(doc.filename).to.equal(auth.filename)
    expect(doc.hostData.stream.videoId).to.equal(auth.videoId)
    expect(doc.hostData.stream.libraryId).to.equal(emu.stream.libraryId)
    expect(doc.hostData.stream.playlistUrl).to.equal(`${emu.stream.cdnUrl}/${auth.videoId}/playlist.m3u8`)
    expect(doc.hostData.stream.thumbnailUrl).to.equal(`${emu.stream.cdnUrl}/${auth.videoId}/thumbnail.jpg`)
    expect(doc.hostData.stream.videoToken ?? null, 'token never returned').to.equal(null)
    const row = (await cms.payload.findByID({ collection: 'videos', id: doc.id, depth: 0 })) as unknown as VideoDoc
    expect(row.hostData.stream.videoToken ?? null, 'token never stored').to.equal(null)

    // Encoding callbacks (signed by the emulator) drive the document to finished with MP4 fallbacks.
    await emu.whenEncoded(auth.videoId)
    const finished = await waitFor('the webhook to mark the video finished', async () => {
      const row = (await cms.payload.findByID({ collection: 'videos', id: doc.id, depth: 0 })) as unknown as VideoDoc
      return row.hostData.stream.status === 'finished' ? row : undefined
    })
    expect(finished.hostData.stream.status).to.equal('finished')
    expect(finished.hostData.stream.encodeProgress).to.equal(100)
    expect(finished.hostData.stream.resolutions!.length).to.be.greaterThan(0)
    for (const r of finished.hostData.stream.resolutions!) expect(r.url).to.match(new RegExp(`^${emu.stream.cdnUrl}/${auth.videoId}/play_\\d+p\\.mp4$`))
    const mp4 = await fetch(finished.hostData.stream.resolutions![0]!.url)
    expect(mp4.status).to.equal(200)
    await mp4.body?.cancel()

    // Resume of a processed video answers `uploaded`.
    const done = await tusAuth(cms, {
      collection: 'videos',
      filename: 'My Clip.mp4',
      filesize: video.length,
      filetype: 'video/mp4',
      videoId: auth.videoId,
      videoToken: auth.videoToken,
    })
    const doneBody = (await done.json()) as TusAuthResponse
    expect(doneBody.type).to.equal('uploaded')
    expect(doneBody.authorizationSignature).to.equal(undefined)

    // The file route redirects to the original on the stream pull zone.
    const file = await cms.fetch(`/api/videos/file/${doc.filename}`, { redirect: 'manual' })
    expect(file.status).to.equal(302)
    expect(file.headers.get('location')).to.equal(`${emu.stream.cdnUrl}/${auth.videoId}/original`)

    // Deleting the document deletes the video on the host.
    expect((await cms.fetch(`/api/videos/${doc.id}`, { method: 'DELETE' })).status).to.equal(200)
    expect(emu.videos().some((v) => v.guid === auth.videoId)).to.equal(false)
  })

  it('sweeps the videos no document holds once the token lifetime is over, never a bound one', async () => {
    const video = mp4Bytes(16 * 1024)
    const auth = (title: string) =>
      tusAuth(cms, { collection: 'videos', filename: `${title}.mp4`, filesize: video.length, filetype: 'video/mp4', head: headOf(video), title }).then(
        (r) => r.json() as Promise<TusAuthResponse>,
      )
    const kept = await auth('kept')
    const abandoned = await auth('abandoned')
    const saved = await saveVideo(cms, { filename: kept.filename!, signedReceipt: kept.signedReceipt, size: video.length, videoToken: kept.videoToken })
    expect(saved.status).to.equal(201)
    const options = resolveOptions(emulatorOptions(emu))
    expect(await sweepOrphanVideos(cms.payload, options), 'young sessions are left alone').to.deep.equal([])
    const removed = await sweepOrphanVideos(cms.payload, options, { now: Date.now() + 26 * 60 * 60 * 1000 })
    expect(removed).to.include(abandoned.videoId)
    expect(removed).not.to.include(kept.videoId)
    expect(emu.videos().some((v) => v.guid === abandoned.videoId)).to.equal(false)
    expect(emu.videos().some((v) => v.guid === kept.videoId)).to.equal(true)
  })

  it('refuses a forged token, a token of another user, a token of another video and a video deleted on the host; nothing is saved', async () => {
    const video = mp4Bytes(64 * 1024)
    const mine = (await (
      await tusAuth(cms, { collection: 'videos', filename: 'a.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'A' })
    ).json()) as TusAuthResponse
    const theirs = (await (
      await tusAuth(
        cms,
        { collection: 'videos', filename: 'b.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'B' },
        cms.otherToken,
      )
    ).json()) as TusAuthResponse
    const other = (await (
      await tusAuth(cms, { collection: 'videos', filename: 'c.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'C' })
    ).json()) as TusAuthResponse
    const before = (await cms.payload.count({ collection: 'videos' })).totalDocs
    const [h, p] = mine.videoToken.split('.')
    const forged = `${h}.${p}.${'A'.repeat(43)}`
    const cases: Array<[string, string, RegExp]> = [
      ['forged', forged, /invalid or expired/],
      ["another user's", theirs.videoToken, /another user/],
      ["another video's", other.videoToken, /does not belong to the uploaded file/],
    ]
    for (const [name, token, message] of cases) {
      const res = await saveVideo(cms, { filename: mine.filename!, signedReceipt: mine.signedReceipt, size: video.length, videoToken: token })
      const text = await res.text()
      expect(res.status, `${name}: ${text}`).to.equal(400)
      expect(text, name).to.match(message)
    }
    // A TUS upload saved without its token is refused too.
    const missing = await saveVideo(cms, { filename: mine.filename!, signedReceipt: mine.signedReceipt, size: video.length })
    expect(missing.status).to.equal(400)
    // A video deleted on the host before the save: refused, as a receipt for a missing object (issue 39 #8).
    const gone = (await (
      await tusAuth(cms, { collection: 'videos', filename: 'd.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'D' })
    ).json()) as TusAuthResponse
    const deleted = await fetch(`${emu.stream.apiBase}/library/${emu.stream.libraryId}/videos/${gone.videoId}`, {
      headers: { AccessKey: emu.stream.apiKey },
      method: 'DELETE',
    })
    expect(deleted.status).to.equal(200)
    const orphan = await saveVideo(cms, { filename: gone.filename!, signedReceipt: gone.signedReceipt, size: video.length, videoToken: gone.videoToken })
    const orphanText = await orphan.text()
    expect(orphan.status, orphanText).to.equal(400)
    expect(orphanText).to.include(`The video ${gone.videoId} is not on the streaming host`)
    expect((await cms.payload.count({ collection: 'videos' })).totalDocs).to.equal(before)

    // Resume with a foreign token or a token for another video is refused.
    const foreign = await tusAuth(cms, {
      collection: 'videos',
      filename: 'a.mp4',
      filesize: video.length,
      filetype: 'video/mp4',
      videoId: mine.videoId,
      videoToken: theirs.videoToken,
    })
    expect(foreign.status).to.equal(403)
    const crossed = await tusAuth(cms, {
      collection: 'videos',
      filename: 'a.mp4',
      filesize: video.length,
      filetype: 'video/mp4',
      videoId: mine.videoId,
      videoToken: other.videoToken,
    })
    expect(crossed.status).to.equal(403)
    expect(await crossed.json()).to.deep.equal({ errors: [{ message: 'The video token does not belong to this video and user.' }] })
  })
})
