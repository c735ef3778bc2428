/**
 * What editors see of their media in the admin panel (issue 16), on the dev-app started as a user starts
 * it (`npm start`): a real VP8 video (encoded in the page with WebCodecs) uploaded through the TUS field,
 * its encoding state followed live in the edit view without a reload (the emulator encodes slowly here),
 * the host's thumbnail in the list view, the edit view and a post's upload field, the player (hls.js
 * first, MP4 renditions as fallback) playing and seeking, the host data summary, and the playback
 * endpoint's answers. Screenshots go to test-artifacts/screenshots/media-admin-*.png.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startDevApp, type RunningDevApp } from './support/devApp.js'
import { freePort } from './support/freePort.js'
import { encodeVideoInPage, muxWebm } from './support/webmVideo.js'

interface Stream {
  videoId: string
  status: string
  thumbnailUrl?: string
  playlistUrl?: string
  resolutions?: { resolution: string; url: string }[]
}
interface Playback {
  hls?: string
  mp4: { resolution: string; url: string }[]
  thumbnail?: string
}

/** A status the edit view's video panel showed: the host's status, the badge's text, when (page clock). */
interface ShownStatus {
  status: string
  label: string
  at: number
}
type PanelWindow = Window & { __statuses: ShownStatus[] }

/**
 * Records in `window.__statuses` each status the video panel shows, from now on: the encoding state's
 * `data-status` and badge text, then `finished` when the player takes its place. A MutationObserver
 * sees every change as React commits it, so a short-lived status cannot fall between two samples.
 * A string, not a function: tsx's name-keeping helpers (`__name`) do not exist in the page.
 */
const RECORD_PANEL_STATUSES = `(() => {
  window.__statuses = []
  const record = () => {
    const encoding = document.querySelector('.storage-host-encoding')
    const player = document.querySelector('.storage-host-player video')
    const status = encoding?.getAttribute('data-status') ?? (player ? 'finished' : null)
    if (!status) return
    const label = encoding?.querySelector('.storage-host-status')?.textContent?.trim() ?? ''
    const last = window.__statuses.at(-1)
    if (last?.status !== status || last.label !== label) window.__statuses.push({ at: performance.now(), label, status })
  }
  new MutationObserver(record).observe(document.body, { attributeFilter: ['data-status'], attributes: true, characterData: true, childList: true, subtree: true })
  record()
})()`

describe('media in the admin panel (dev-app, npm start)', function () {
  this.timeout(30 * 60_000)
  let app: RunningDevApp
  let browser: Browser | undefined
  let page: Page
  let work: string
  /** A real 6 s VP8 WebM (320×180), encoded once in the page. */
  let videoFile: string
  /**
   * The fixture of the tests that need a finished video: uploaded through the admin in `before`, encoded
   * by the emulator, so each test runs alone (`--grep`) and none depends on another one's upload.
   */
  let finished: { id: string; stream: Stream }
  const previousStep = process.env.EMULATOR_ENCODING_STEP_MS

  before(async function () {
    browser = await launchBrowser()
    // Each encoding step of the emulator takes 2.5 s: the statuses stay long enough to be seen changing.
    process.env.EMULATOR_ENCODING_STEP_MS = '2500'
    app = await startDevApp({ ports: { cms: await freePort(), daemon: await freePort(), emulator: await freePort() }, readyTimeoutMs: 25 * 60_000 })
    page = await browser!.newPage({ viewport: { height: 900, width: 1400 } })
    await page.goto(`${app.cmsUrl}/admin/login`)
    await page.fill('input[name="email"]', app.credentials.adminEmail)
    await page.fill('input[name="password"]', app.credentials.adminPassword)
    await page.click('button[type="submit"]')
    await page.waitForURL(`${app.cmsUrl}/admin`)
    work = mkdtempSync(path.join(tmpdir(), 'media-admin-e2e-'))
    videoFile = path.join(work, 'media-admin.webm')
    writeFileSync(videoFile, muxWebm(await encodeVideoInPage(page, 6)))
    const id = await uploadVideo('Video played by the media-admin test')
    // The edit view puts the player in place once the host says finished (live, see the first test).
    await page.locator('.storage-host-player video').waitFor({ timeout: 300_000 })
    const doc = await api<{ hostData: { stream: Stream } }>(`/api/videos/${id}`)
    if (doc.body.hostData.stream.status !== 'finished') throw new Error(`fixture video ${id}: ${JSON.stringify(doc.body.hostData.stream)}`)
    finished = { id, stream: doc.body.hostData.stream }
  })

  after(async function () {
    if (work) rmSync(work, { force: true, recursive: true })
    if (previousStep === undefined) delete process.env.EMULATOR_ENCODING_STEP_MS
    else process.env.EMULATOR_ENCODING_STEP_MS = previousStep
    await browser?.close()
    if (app) {
      await app.stop()
      rmSync(app.dataDir, { force: true, recursive: true })
    }
  })

  const api = async <T>(route: string): Promise<{ status: number; body: T }> => {
    const res = await page.request.get(`${app.cmsUrl}${route}`)
    return { body: (await res.json()) as T, status: res.status() }
  }

  /** What an editor does: pick the file, type a title, wait for the upload, Save. Returns the document id. */
  const uploadVideo = async (title: string): Promise<string> => {
    await page.goto(`${app.cmsUrl}/admin/collections/videos/create`)
    await page.locator('input[type="file"]').setInputFiles(videoFile)
    await page.fill('input[name="title"]', title)
    // The upload starts on the pick; Save attaches the video once it is done.
    await page.getByText('Uploaded. Save to attach the video.').waitFor({ timeout: 120_000 })
    await page.getByRole('button', { name: 'Save' }).click()
    await page.waitForURL(/\/admin\/collections\/videos\/\d+/)
    return page.url().split('/').pop()!
  }

  it('uploads a video and follows its encoding state live in the edit view, without a reload, until the player appears', async function () {
    const videoDocId = await uploadVideo('Video watched by the media-admin test')

    // A marker on the window: it survives only if the page is never reloaded.
    await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true))
    // Every status the panel shows is recorded in the page as the DOM changes (no sampling can miss one).
    await page.evaluate(RECORD_PANEL_STATUSES)
    await page.locator('.storage-host-encoding').waitFor({ timeout: 120_000 })
    await saveScreenshot(page, 'media-admin-video-encoding')
    // The last status: finished, the player in the encoding state's place.
    await page.waitForFunction(() => (window as unknown as PanelWindow).__statuses.at(-1)?.status === 'finished', undefined, { timeout: 300_000 })
    await page.locator('.storage-host-player video').waitFor({ timeout: 5_000 })
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).to.equal(true)
    const recorded = await page.evaluate(() => (window as unknown as PanelWindow).__statuses)
    const trail = recorded.map((s) => `${s.status} "${s.label}" @${Math.round(s.at - recorded[0]!.at)} ms`).join(' → ')
    const seen = recorded.slice(0, -1)
    // At least two different states of the host were shown before the player, in the host's order, each
    // with its label on the badge.
    expect(new Set(seen.map((s) => s.status)).size, `statuses seen: ${trail}`).to.be.greaterThanOrEqual(2)
    expect(
      seen.every((s) => s.label.length > 0),
      `statuses seen: ${trail}`,
    ).to.equal(true)
    const order = ['uploading', 'uploadStarted', 'uploaded', 'queued', 'processing', 'encoding', 'playable']
    const ranks = seen.map((s) => order.indexOf(s.status))
    expect(
      ranks.every((r) => r >= 0),
      `statuses seen: ${trail}`,
    ).to.equal(true)
    expect(ranks, `statuses seen: ${trail}`).to.deep.equal([...ranks].sort((a, b) => a - b))
    // The sidebar summary followed too: a finished badge, the resolutions, links to copy.
    await page.locator('.storage-host-summary[data-status="finished"]').waitFor()
    const doc = await api<{ hostData: { stream: Stream } }>(`/api/videos/${videoDocId}`)
    const stream = doc.body.hostData.stream
    expect(stream.status).to.equal('finished')
    // The edit view's own upload preview picked up the host's thumbnail, still without a reload.
    await page.locator(`.file-details img[src^="${stream.thumbnailUrl}"]`).waitFor({ timeout: 30_000 })
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).to.equal(true)
    // The emulator encodes for real: the 320×180 source gets one rendition at its own height.
    expect(await page.locator('.storage-host-summary__resolutions').textContent()).to.contain('180p')
    expect(await page.locator('.storage-host-summary a', { hasText: 'HLS playlist' }).getAttribute('href')).to.equal(stream.playlistUrl)
    // No column of disabled inputs any more.
    expect(await page.locator('input[name="hostData.stream.playlistUrl"]:visible').count()).to.equal(0)
    await saveScreenshot(page, 'media-admin-video-finished')
  })

  it("shows the host thumbnail in the list view, the edit view and a post's upload field", async function () {
    const { id: videoDocId, stream } = finished
    expect(stream.thumbnailUrl).to.be.a('string')
    const listed = await api<{ docs: { id: number; thumbnailURL: string | null }[] }>(`/api/videos?where[id][equals]=${videoDocId}`)
    expect(listed.body.docs[0]!.thumbnailURL).to.equal(stream.thumbnailUrl)
    const thumb = await fetch(stream.thumbnailUrl!)
    expect(thumb.status).to.equal(200)
    expect(thumb.headers.get('content-type')).to.equal('image/jpeg')

    const loaded = (selector: string) =>
      page.waitForFunction((s) => [...document.querySelectorAll<HTMLImageElement>(s)].some((img) => img.complete && img.naturalWidth > 0), selector, {
        timeout: 30_000,
      })
    const thumbSelector = `img[src^="${stream.thumbnailUrl}"]`

    await page.goto(`${app.cmsUrl}/admin/collections/videos`)
    await loaded(`table ${thumbSelector}`)
    await saveScreenshot(page, 'media-admin-videos-list')

    await page.goto(`${app.cmsUrl}/admin/collections/videos/${videoDocId}`)
    await loaded(`.file-details ${thumbSelector}`)

    // Images on the storage host: their thumbnail size, from the CDN.
    const images = await api<{ docs: { id: number; thumbnailURL: string; sizes: { thumbnail: { filename: string } } }[] }>('/api/images?limit=1')
    const image = images.body.docs[0]!
    expect(image.thumbnailURL).to.match(new RegExp(`^${app.emulatorUrl.replace(/[.]/g, '\\.')}/cdn/dev-zone/.*${image.sizes.thumbnail.filename}$`))
    expect((await fetch(image.thumbnailURL)).status).to.equal(200)

    // A post using both: the relationship's upload fields preview them.
    const login = await fetch(`${app.cmsUrl}/api/users/login`, {
      body: JSON.stringify({ email: app.credentials.adminEmail, password: app.credentials.adminPassword }),
      headers: { 'Content-Type': 'application/json' },
      method: 'POST',
    })
    const { token } = (await login.json()) as { token: string }
    const created = await page.request.post(`${app.cmsUrl}/api/posts`, {
      data: { heroImage: image.id, title: 'Post with the media-admin video', video: Number(videoDocId) },
      headers: { Authorization: `JWT ${token}` },
    })
    expect(created.status()).to.equal(201)
    const post = ((await created.json()) as { doc: { id: number } }).doc
    await page.goto(`${app.cmsUrl}/admin/collections/posts/${post.id}`)
    await loaded(thumbSelector)
    await loaded(`img[src^="${image.thumbnailURL}"]`)
    await saveScreenshot(page, 'media-admin-post-upload-fields')

    // The media picker of a new post's video field lists the video with its thumbnail.
    await page.goto(`${app.cmsUrl}/admin/collections/posts/create`)
    const videoField = page.locator('.field-type.upload', { has: page.locator('label', { hasText: /^Video$/ }) })
    await videoField.getByRole('button', { name: /Choose from existing/i }).click()
    await loaded(`.drawer ${thumbSelector}, .list-drawer ${thumbSelector}`)
    await saveScreenshot(page, 'media-admin-media-picker')
  })

  it('plays the finished video in the edit view and seeks in it', async function () {
    const { id: videoDocId, stream } = finished
    const playback = await api<Playback>(`/api/videos/${videoDocId}/playback`)
    expect(playback.status).to.equal(200)
    expect(playback.body.hls).to.equal(stream.playlistUrl)
    expect(playback.body.mp4.map((r) => r.resolution)).to.include('180p')
    // The host serves ranges of the renditions (what seeking asks for).
    const ranged = await fetch(playback.body.mp4[0]!.url, { headers: { Range: 'bytes=0-99' } })
    expect(ranged.status).to.equal(206)
    expect((await ranged.arrayBuffer()).byteLength).to.equal(100)

    await page.goto(`${app.cmsUrl}/admin/collections/videos/${videoDocId}`)
    const video = page.locator('.storage-host-player video')
    await video.waitFor()
    // Press play once the source is attached and its first frame is in: attaching a source (hls.js's
    // MediaSource, an MP4 URL) resets the element to paused, so an earlier play() would be lost. A later
    // switch (hls.js → MP4 when the host's HLS fails) carries the playing state over to the new source.
    await page.waitForFunction(() => (document.querySelector<HTMLVideoElement>('.storage-host-player video')?.readyState ?? 0) >= 2, undefined, {
      timeout: 60_000,
    })
    const played = await video.evaluate((v: HTMLVideoElement) => {
      v.muted = true
      return v.play().then(
        () => 'resolved',
        (error: Error) => `refused: ${error.name} ${error.message}`,
      )
    })
    await page
      .waitForFunction(
        () => {
          const v = document.querySelector<HTMLVideoElement>('.storage-host-player video')
          return Boolean(v && !v.paused && v.currentTime > 0.2 && v.readyState >= 3)
        },
        undefined,
        { timeout: 60_000 },
      )
      .catch((error: Error) => {
        throw new Error(`the video did not play (play() ${played}): ${error.message}`)
      })
    expect(await page.locator('.storage-host-player').getAttribute('data-playing')).to.equal('true')
    // Seek forward: the browser asks the host for the bytes there, and playback continues from there.
    const target = 4
    const landed = await video.evaluate(
      (v: HTMLVideoElement, to) =>
        new Promise<number>((resolve) => {
          v.addEventListener('seeked', () => resolve(v.currentTime), { once: true })
          v.currentTime = to
        }),
      target,
    )
    expect(landed).to.be.closeTo(target, 0.5)
    await page.waitForFunction(
      (to) => {
        const v = document.querySelector<HTMLVideoElement>('.storage-host-player video')
        return Boolean(v && !v.paused && v.currentTime > to + 0.2)
      },
      target,
      { timeout: 30_000 },
    )
    // The duration reached the summary.
    expect(await page.locator('.storage-host-summary__duration').textContent()).to.equal('0:06')
    await saveScreenshot(page, 'media-admin-video-playing')

    // The resolution picker switches to another rendition and keeps the position.
    const picker = page.locator('.storage-host-player__quality')
    const values = await picker.locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))
    expect(values).to.include.members(playback.body.mp4.map((r) => r.resolution))
    const current = await page.locator('.storage-host-player').getAttribute('data-source')
    const other = playback.body.mp4.map((r) => r.resolution).find((r) => r !== current)!
    const before = await video.evaluate((v: HTMLVideoElement) => v.currentTime)
    await picker.selectOption(other)
    await page.locator(`.storage-host-player[data-source="${other}"]`).waitFor()
    await page.waitForFunction(
      ({ other, before }) => {
        const v = document.querySelector<HTMLVideoElement>('.storage-host-player video')
        return Boolean(v && v.currentSrc.includes(`play_${other}.mp4`) && !v.paused && v.currentTime >= before)
      },
      { before, other },
      { timeout: 30_000 },
    )
  })

  it('answers 404 and no URL for a document that does not exist', async function () {
    // The dev-app lets anyone read videos; the 403 for a reader without access is tested against a
    // collection with real read access in plugin-storage/test/playbackEndpoint.test.ts.
    const missing = await fetch(`${app.cmsUrl}/api/videos/999999/playback`)
    expect(missing.status).to.equal(404)
    expect(JSON.stringify(await missing.json())).not.to.contain('http')
  })
})
