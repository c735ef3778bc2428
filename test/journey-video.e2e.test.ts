/**
 * Journey of an editor with a video (issue 24, items 3 and 4), on the dev-app started as a user starts
 * it (`npm start`), in Chromium: pick a real video with the file input, fill the title, press Save.
 * The upload starts on the pick and shows bytes, speed and time left (the page's upload is throttled
 * so it lasts long enough to be seen); Save pressed during the upload waits for it and attaches the
 * video; the encoding state changes live; the player then plays and seeks (HLS through hls.js, and
 * the MP4 fallback files when the plugin has `mp4Fallback`). Run twice: with the plugin README's
 * install snippet (no `mp4Fallback`) and with it. A missing title, a missing file and a video whose
 * HLS cannot play each give a visible message. Screenshots: test-artifacts/screenshots/journey-video-*.png.
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'
import { fakeMp4 } from '../dev-app/test/emulator/helpers/fakeMp4.js'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startDevApp, type RunningDevApp } from './support/devApp.js'
import { makeTestVideo, requireFfmpeg } from './support/ffmpegVideo.js'
import { freePort } from './support/freePort.js'
import { playAndSeek } from './support/playAndSeek.js'

interface Stream {
  videoId?: string
  status?: string
}

/** The host's order of the states the encoding panel shows. */
const STATUS_ORDER = ['uploading', 'uploadStarted', 'uploaded', 'queued', 'processing', 'encoding', 'playable', 'finished']

/**
 * Records each distinct state the encoding panel shows (`status percent`) on `window.__encodingSeen`; the
 * admin navigates client-side, so it keeps recording on the edit view. A string, not a function: tsx's
 * name-keeping helpers do not exist in the page.
 */
const RECORD_ENCODING_STATES = `(() => {
  const seen = (window.__encodingSeen = [])
  new MutationObserver(() => {
    const panel = document.querySelector('.storage-host-encoding')
    if (!panel) return
    const percent = panel.querySelector('.storage-host-encoding__percent')
    const state = (panel.getAttribute('data-status') + ' ' + (percent ? percent.textContent : '')).trim()
    if (seen[seen.length - 1] !== state) seen.push(state)
  }).observe(document.body, { attributes: true, characterData: true, childList: true, subtree: true })
})()`

/** Upload speed the page is held to while the video goes to the host (bytes per second). */
const THROTTLED_UPLOAD = 1024 * 1024

describe('journey: an editor attaches a video and plays it (dev-app, Chromium)', function () {
  this.timeout(40 * 60_000)
  let browser: Browser
  let work: string
  let videoFile: string
  let videoBytes: number

  before(async function () {
    requireFfmpeg()
    const launched = await launchBrowser()
    if (!launched) throw new Error(`Chromium is not installed at ${process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'} (Debian package chromium)`)
    browser = launched
    work = mkdtempSync(path.join(tmpdir(), 'journey-video-'))
    videoFile = path.join(work, 'journey-clip.mp4')
    // 8 s at 640×360 and 8 Mb/s: about 5 MB, a few seconds of upload at the throttled speed.
    videoBytes = makeTestVideo(videoFile, { width: 640, height: 360, seconds: 8, bitrate: '8M' })
  })

  after(async function () {
    await browser?.close()
    if (work) rmSync(work, { force: true, recursive: true })
  })

  for (const mp4Fallback of [false, true]) {
    describe(mp4Fallback ? 'with mp4Fallback' : "with the plugin README's snippet (no mp4Fallback)", function () {
      let app: RunningDevApp
      let page: Page

      before(async function () {
        app = await startDevApp({
          ports: { cms: await freePort(), daemon: await freePort(), emulator: await freePort() },
          readyTimeoutMs: 25 * 60_000,
          // Each waiting stage of the emulator's encoding lasts 1.5 s, so the live states can be seen.
          env: { EMULATOR_ENCODING_STEP_MS: '1500', HOST_STREAM_MP4_FALLBACK: String(mp4Fallback) },
        })
        page = await browser.newPage({ viewport: { height: 1000, width: 1400 } })
        await page.goto(`${app.cmsUrl}/admin/login`)
        await page.fill('input[name="email"]', app.credentials.adminEmail)
        await page.fill('input[name="password"]', app.credentials.adminPassword)
        await page.click('button[type="submit"]')
        await page.waitForURL(`${app.cmsUrl}/admin`)
      })

      after(async function () {
        await page?.close()
        if (app) {
          await app.stop()
          rmSync(app.dataDir, { force: true, recursive: true })
        }
      })

      const streamOf = async (id: string): Promise<Stream | undefined> => {
        const res = await page.request.get(`${app.cmsUrl}/api/videos/${id}?depth=0`)
        return ((await res.json()) as { hostData?: { stream?: Stream } }).hostData?.stream
      }

      it('picks a video, fills the title, presses Save: upload progress, attached, encoding live, then it plays and seeks', async function () {
        const tag = mp4Fallback ? 'mp4' : 'hls-only'
        const cdp = await page.context().newCDPSession(page)
        await cdp.send('Network.enable')
        await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: THROTTLED_UPLOAD })

        await page.goto(`${app.cmsUrl}/admin/collections/videos/create`)
        await page.locator('input[type="file"]').setInputFiles(videoFile)
        // The upload starts on the pick: bytes sent of the total, speed and time left.
        const upload = page.locator('.storage-host-upload[data-phase="uploading"]')
        const details = upload.locator('.storage-host-upload__details')
        await details.filter({ hasText: / left$/ }).waitFor({ timeout: 60_000 })
        expect(await details.textContent()).to.match(/^[\d.,]+ (B|KB|MB) of [\d.,]+ MB · [\d.,]+ (B|KB|MB)\/s · \d+:\d\d left$/)
        expect(await details.textContent()).to.contain(`of ${(videoBytes / 1024 / 1024).toFixed(1)} MB`)
        await saveScreenshot(page, `journey-video-${tag}-uploading`)

        await page.fill('input[name="title"]', `Journey clip (${tag})`)
        // Still uploading (throttled): Save waits for the upload, and says so.
        expect(await upload.count(), 'the upload is still running when Save is pressed').to.equal(1)
        await page.getByRole('button', { name: 'Save' }).click()
        await page.getByText('The document is saved as soon as the upload is done.').waitFor()
        await saveScreenshot(page, `journey-video-${tag}-save-held`)
        // A recorder of what the encoding panel shows, kept on the window (the admin navigates client-side).
        await page.evaluate(RECORD_ENCODING_STATES)
        await page.waitForURL(/\/admin\/collections\/videos\/\d+/, { timeout: 120_000 })
        await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
        const id = page.url().split('/').pop()!
        expect((await streamOf(id))?.videoId, 'the video is attached to the document').to.be.a('string')
        await page.locator('.storage-host-encoding').waitFor({ timeout: 60_000 })
        await saveScreenshot(page, `journey-video-${tag}-encoding`)

        const video = page.locator('.storage-host-player video')
        await video.waitFor({ timeout: 180_000 })
        const seen = await page.evaluate(() => (window as unknown as { __encodingSeen: string[] }).__encodingSeen)
        expect(seen.length, `encoding states shown: ${seen.join(' → ')}`).to.be.greaterThanOrEqual(2)
        const ranks = seen.map((state) => STATUS_ORDER.indexOf(state.split(' ')[0]!))
        expect(ranks.every((rank) => rank >= 0) && ranks.every((rank, i) => i === 0 || rank >= ranks[i - 1]!), `states: ${seen.join(' → ')}`).to.equal(true)
        expect((await streamOf(id))?.status).to.equal('finished')

        // The poster is a frame of the video (the test pattern), not a flat placeholder.
        const poster = await video.getAttribute('poster')
        expect(poster, 'the player has a poster').to.be.a('string')
        const frame = sharp(await (await page.request.get(poster!)).body())
        expect(await frame.metadata()).to.include({ width: 640, height: 360 })
        expect(Math.max(...(await frame.stats()).channels.map((c) => c.stdev))).to.be.greaterThan(30)

        // HLS first (hls.js), playing and seeking.
        await page.locator('.storage-host-player[data-source="hls"]').waitFor()
        await playAndSeek(page, '.storage-host-player video', 4)
        await page.locator('.storage-host-player[data-playing="true"]').waitFor()
        expect(await page.locator('.storage-host-player__failure').count()).to.equal(0)
        await saveScreenshot(page, `journey-video-${tag}-playing-hls`)

        const qualities = await page.locator('.storage-host-player__quality option').allTextContents()
        if (!mp4Fallback) {
          // The README's snippet: HLS is the only source, so no picker.
          expect(qualities).to.deep.equal([])
          return
        }
        expect(qualities).to.deep.equal(['HLS (auto)', 'MP4 360p', 'MP4 240p'])
        // Switching from HLS to an MP4 file keeps the position and keeps playing (from 2 s on, well before the end).
        await video.evaluate(async (v: HTMLVideoElement) => {
          v.currentTime = 2
          await v.play()
        })
        const before = await video.evaluate((v: HTMLVideoElement) => v.currentTime)
        await page.locator('.storage-host-player__quality').selectOption('360p')
        await page.locator('.storage-host-player[data-source="360p"]').waitFor()
        await page.waitForFunction(
          (at) => {
            const v = document.querySelector<HTMLVideoElement>('.storage-host-player video')
            return Boolean(v && v.currentSrc.includes('/play_360p.mp4') && !v.paused && v.currentTime >= at)
          },
          before,
          { timeout: 30_000 },
        )
        expect(await video.evaluate((v: HTMLVideoElement) => v.currentSrc)).to.match(/\/play_360p\.mp4/)
        await playAndSeek(page, '.storage-host-player video', 6)
        expect(await page.locator('.storage-host-player__failure').count()).to.equal(0)
        await saveScreenshot(page, `journey-video-${tag}-playing-mp4`)
      })

      if (mp4Fallback) {
        it('fetches a video with "Paste URL": it uploads at once and Save attaches it', async function () {
          // The video sits on a web server that allows the admin's origin (the emulator's storage CDN).
          const put = await fetch(`${app.emulatorUrl}/storage/dev-zone/journey/pasted-clip.mp4`, {
            body: readFileSync(videoFile),
            headers: { AccessKey: app.credentials.storageAccessKey },
            method: 'PUT',
          })
          expect(put.status).to.equal(201)
          await page.goto(`${app.cmsUrl}/admin/collections/videos/create`)
          await page.getByRole('button', { name: 'Paste URL' }).click()
          await page.locator('.file-field__remote-file').fill(`${app.emulatorUrl}/cdn/dev-zone/journey/pasted-clip.mp4`)
          await page.getByRole('button', { name: 'Add file' }).click()
          await page.locator('.storage-host-upload').waitFor()
          await page.fill('input[name="title"]', 'Pasted clip')
          await page.getByText('Uploaded. Save to attach the video.').waitFor({ timeout: 60_000 })
          await saveScreenshot(page, 'journey-video-paste-url-uploaded')
          await page.getByRole('button', { name: 'Save' }).click()
          await page.waitForURL(/\/admin\/collections\/videos\/\d+/)
          const stream = await streamOf(page.url().split('/').pop()!)
          expect(stream?.videoId, 'the pasted video is attached').to.be.a('string')
        })
        return
      }

      it('says on the page what is missing: the title, then the file', async function () {
        await page.goto(`${app.cmsUrl}/admin/collections/videos/create`)
        await page.locator('input[type="file"]').setInputFiles(videoFile)
        await page.getByRole('button', { name: 'Save' }).click()
        // The save is held until the upload is done (4.4 MB; minutes on loaded cores while the earlier videos
        // encode), then the form is checked. The two waits apart say which of them a failure is.
        const settled = page.locator('.storage-host-upload[data-phase="done"], .storage-host-upload[data-phase="error"]')
        await settled.waitFor({ timeout: 300_000 })
        expect(await settled.getAttribute('data-phase'), (await settled.textContent()) ?? '').to.equal('done')
        await page
          .locator('.field-type.text .field-error, .field-type.text [class*="error"]')
          .filter({ hasText: 'This field is required.' })
          .first()
          .waitFor({ timeout: 30_000 })
        expect(page.url()).to.match(/\/videos\/create$/)
        await saveScreenshot(page, 'journey-video-missing-title')

        await page.goto(`${app.cmsUrl}/admin/collections/videos/create`)
        await page.fill('input[name="title"]', 'A video without a file')
        await page.getByRole('button', { name: 'Save' }).click()
        await page
          .getByText(/A file is required\.|No files were uploaded\./)
          .first()
          .waitFor()
        expect(page.url()).to.match(/\/videos\/create$/)
        await saveScreenshot(page, 'journey-video-missing-file')
      })

      it('says on the page when a video cannot be played (its HLS renditions fail and there is no MP4)', async function () {
        // A container with no frames: the host finishes it, but has nothing playable to serve.
        const file = path.join(work, 'no-frames.mp4')
        writeFileSync(file, fakeMp4({ width: 640, height: 360, mediaBytes: 64 * 1024 }))
        await page.goto(`${app.cmsUrl}/admin/collections/videos/create`)
        await page.locator('input[type="file"]').setInputFiles(file)
        await page.fill('input[name="title"]', 'A video with no frames')
        await page.locator('.storage-host-upload[data-phase="done"]').waitFor({ timeout: 60_000 })
        await page.getByRole('button', { name: 'Save' }).click()
        await page.waitForURL(/\/admin\/collections\/videos\/\d+/)
        const failure = page.locator('.storage-host-player__failure[role="alert"]')
        await failure.waitFor({ timeout: 180_000 })
        expect(await failure.textContent()).to.match(/^This video cannot be played: HLS \w+/)
        await saveScreenshot(page, 'journey-video-cannot-play')
      })
    })
  }
})
