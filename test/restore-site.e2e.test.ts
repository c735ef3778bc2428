/**
 * Backups that bring the whole site back (issue 25), on the dev-app started as a user starts it
 * (`npm start`): a real video is uploaded in the admin panel (encoded by the emulator) beside the seeded
 * image, with a members' document (the second zone) and a private video (the second library); the daemon's
 * `cms` job runs through its API, the dev-app is stopped, and `npm run restore-site`
 * restores the snapshot into a fresh data folder and a fresh emulator library (the database and the zone's
 * files unpacked into place, the video uploaded again under a new GUID, the documents moved to it). The
 * dev-app is then started on the restored data, on other ports than the original's (no URL a reader gets
 * names the old ones): in Chromium the restored video's edit page shows its
 * thumbnail (really loaded, `naturalWidth > 0`) and its player plays and seeks, and the image's edit page
 * shows its thumbnail; the document's file is served again and the private video, in its own library under a
 * new GUID, plays. Screenshots: test-artifacts/screenshots/restore-site-*.png.
 */
import { expect } from 'chai'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startDevApp, type RunningDevApp } from './support/devApp.js'
import { logIn, logInToDaemon, saveUploadInAdmin, signedInGet, uploadVideoInAdmin } from './support/devAppSteps.js'
import { makeTestVideo, requireFfmpeg } from './support/ffmpegVideo.js'
import { freePort } from './support/freePort.js'
import { playAndSeek } from './support/playAndSeek.js'
import { runCommand } from './support/runCommand.js'
import { waitFor } from './support/waitFor.js'

type Stream = { videoId: string; libraryId: number; status: string; thumbnailUrl: string; playlistUrl: string; resolutions?: { url: string }[] }
type VideoDoc = { id: number; title: string; hostData: { stream: Stream } }

describe('restore-site: the whole dev-app site back from a snapshot (database, images, videos), in Chromium', function () {
  this.timeout(40 * 60_000)
  let browser: Browser
  let ports: { cms: number; daemon: number; emulator: number }
  /** The original site's ports: the restored one runs on others (issue 41: URLs are made when read, not stored). */
  let originalPorts: typeof ports
  let original: RunningDevApp | undefined
  let restored: RunningDevApp | undefined
  let restoredDir: string
  let page: Page
  let before: { video: VideoDoc; image: { id: number; filename: string }; document: number; privateVideo: VideoDoc }
  let restoreOutput: string
  let originalStopped = false

  const env = () => ({
    CMS_PORT: String(ports.cms),
    DAEMON_PORT: String(ports.daemon),
    EMULATOR_PORT: String(ports.emulator),
    CMS_URL: `http://localhost:${ports.cms}`,
  })
  const api = async <T>(app: RunningDevApp, route: string): Promise<T> => (await (await page.request.get(`${app.cmsUrl}${route}`)).json()) as T

  after(async () => {
    await page?.close()
    await browser?.close()
    await restored?.stop()
    if (!originalStopped) await original?.stop()
    for (const dir of [original?.dataDir, restoredDir && path.dirname(restoredDir)]) if (dir) rmSync(dir, { force: true, recursive: true })
  })

  it('backs the site up: a video uploaded and encoded, the seeded image, the cms job run', async function () {
    requireFfmpeg()
    browser = await launchBrowser()
    ports = { cms: await freePort(), daemon: await freePort(), emulator: await freePort() }
    original = await startDevApp({ ports, readyTimeoutMs: 25 * 60_000 })
    page = await browser.newPage({ viewport: { height: 1000, width: 1400 } })
    await logIn(page, original)
    await uploadVideoInAdmin(page, original)
    // The second zone and the second library: a members' document and a private video.
    const files = mkdtempSync(path.join(tmpdir(), 'restore-site-files-'))
    writeFileSync(path.join(files, 'rules.txt'), 'The members rules.\n')
    makeTestVideo(path.join(files, 'private.mp4'), { height: 360, seconds: 3, width: 640 })
    const document = await saveUploadInAdmin(page, original, 'documents', path.join(files, 'rules.txt'), 'Members rules')
    const privateId = await saveUploadInAdmin(page, original, 'private-videos', path.join(files, 'private.mp4'), 'Private clip')
    let privateVideo: VideoDoc | undefined
    await waitFor(async () => {
      privateVideo = await signedInGet<VideoDoc>(page, original!, `/api/private-videos/${privateId}?depth=0`)
      return privateVideo.hostData?.stream?.status === 'finished'
    }, 180_000)
    rmSync(files, { force: true, recursive: true })
    const videos = await api<{ docs: VideoDoc[] }>(original, '/api/videos?depth=0')
    const images = await api<{ docs: { id: number; filename: string }[] }>(original, '/api/images?depth=0')
    expect(videos.docs).to.have.length(1)
    expect(images.docs.length).to.be.greaterThan(0)
    before = { document, image: images.docs[0]!, privateVideo: privateVideo!, video: videos.docs[0]! }
    expect(before.video.hostData.stream.status).to.equal('finished')

    const daemonApi = `${original.daemonUrl}/api/v1`
    const cookie = await logInToDaemon(original)
    type Status = { status: string; lastRun?: string; lastResult?: { success: boolean } | null }
    const status = async () => (await (await fetch(`${daemonApi}/jobs/cms/status`, { headers: { cookie } })).json()) as Status
    const earlier = (await status()).lastRun
    expect((await fetch(`${daemonApi}/jobs/cms/run`, { method: 'POST', headers: { cookie } })).status).to.equal(202)
    let last: Status | undefined
    await waitFor(async () => {
      last = await status()
      return last.status === 'idle' && last.lastRun !== earlier && Boolean(last.lastResult)
    }, 300_000)
    expect(last!.lastResult!.success, 'the cms job succeeded').to.equal(true)
    await page.close()
    await original.stop()
    originalStopped = true
  })

  it('npm run restore-site brings it back into a fresh data folder and a fresh emulator library, on other ports', async function () {
    originalPorts = ports
    ports = { cms: await freePort(), daemon: await freePort(), emulator: await freePort() }
    restoredDir = path.join(mkdtempSync(path.join(tmpdir(), 'restore-site-e2e-')), 'data')
    restoreOutput = await runCommand(
      'npm',
      ['run', 'restore-site', '-w', 'dev-app', '--', '--snapshot', 'latest', '--from', original!.dataDir, '--data-dir', restoredDir],
      env(),
    )
    expect(restoreOutput).to.match(/(^|\s)videos: 1 uploaded, 0 skipped/m)
    expect(restoreOutput).to.match(/private-videos: 1 uploaded, 0 skipped/)
    expect(restoreOutput).to.contain(`remap: private-videos ${before.privateVideo.id}: video ${before.privateVideo.hostData.stream.videoId} →`)
    expect(restoreOutput).to.contain(`remap: videos ${before.video.id}: video ${before.video.hostData.stream.videoId} →`)
    const map = JSON.parse(readFileSync(path.join(restoredDir, 'restore-guid-map.json'), 'utf8')) as { videos: { ids: Record<string, string> } }
    const newGuid = map.videos.ids[before.video.hostData.stream.videoId]
    expect(newGuid).to.be.a('string').and.not.equal(before.video.hostData.stream.videoId)
    // The daemon's line per video: old GUID, the library's title, new GUID.
    expect(restoreOutput).to.match(new RegExp(`video ${before.video.hostData.stream.videoId} \\("[^"]+"\\) restored as ${newGuid}`))
    expect(existsSync(path.join(restoredDir, 'db', 'cms.db'))).to.equal(true)
    // A fresh library: the emulator's state of the new folder holds the new video only.
    expect(readFileSync(path.join(restoredDir, 'host', 'state.json'), 'utf8'))
      .to.contain(newGuid)
      .and.not.contain(before.video.hostData.stream.videoId)
  })

  it('the restored site, on other ports and another CDN hostname, shows the video’s thumbnail and plays it, and shows the image’s thumbnail', async function () {
    // The pull zone and the stream CDN under another hostname (localhost, not the 127.0.0.1 the backup's URLs would name):
    // a site that moves its CDN reads every URL from the options in force, with no write to its documents.
    const streamCdn = `http://localhost:${ports.emulator}/stream-cdn/1001`
    const storageCdn = `http://localhost:${ports.emulator}/cdn/dev-zone`
    restored = await startDevApp({
      ports,
      dataDir: restoredDir,
      readyTimeoutMs: 25 * 60_000,
      env: { HOST_STORAGE_CDN_URL: storageCdn, HOST_STREAM_CDN_URL: streamCdn },
    })
    page = await browser.newPage({ viewport: { height: 1000, width: 1400 } })
    await logIn(page, restored)
    const video = await api<VideoDoc>(restored, `/api/videos/${before.video.id}?depth=0`)
    const stream = video.hostData.stream
    expect(video.title).to.equal(before.video.title)
    expect(stream.videoId).to.not.equal(before.video.hostData.stream.videoId)
    expect(stream).to.include({ status: 'finished', libraryId: before.video.hostData.stream.libraryId })
    expect(stream.thumbnailUrl.startsWith(`${streamCdn}/${stream.videoId}/`), stream.thumbnailUrl).to.equal(true)
    expect(stream.playlistUrl.startsWith(`${streamCdn}/${stream.videoId}/`), stream.playlistUrl).to.equal(true)
    expect(JSON.stringify(stream)).to.not.contain(before.video.hostData.stream.videoId)
    // Every URL the reader gets is made from the restored site's options: none names the original's emulator.
    expect(JSON.stringify(video)).to.not.contain(`:${originalPorts.emulator}/`)

    const loaded = (selector: string) =>
      page.waitForFunction((s) => [...document.querySelectorAll<HTMLImageElement>(s)].some((img) => img.complete && img.naturalWidth > 0), selector, {
        timeout: 60_000,
      })
    await page.goto(`${restored.cmsUrl}/admin/collections/videos/${video.id}`)
    await loaded(`.file-details img[src^="${stream.thumbnailUrl}"]`)
    await page.locator('.storage-host-player video').waitFor({ timeout: 60_000 })
    await playAndSeek(page, '.storage-host-player video', 2)
    expect(await page.locator('.storage-host-player__failure').count()).to.equal(0)
    await saveScreenshot(page, 'restore-site-video')

    const image = await api<{ id: number; filename: string; thumbnailURL: string }>(restored, `/api/images/${before.image.id}?depth=0`)
    expect(image.filename).to.equal(before.image.filename)
    expect((await fetch(image.thumbnailURL)).status).to.equal(200)
    expect(JSON.stringify(image)).to.not.contain(`:${originalPorts.emulator}/`)
    await page.goto(`${restored.cmsUrl}/admin/collections/images/${image.id}`)
    await loaded(`.file-details img[src^="${image.thumbnailURL.split('?')[0]}"]`)
    await saveScreenshot(page, 'restore-site-image')

    // The second zone's file and the second library's video, back in their own zone and library.
    const membersFile = await signedInGet<{ url: string }>(page, restored, `/api/documents/${before.document}?depth=0`)
    expect(await (await page.request.get(membersFile.url, { headers: { origin: restored.cmsUrl } })).text()).to.equal('The members rules.\n')
    const privateVideo = await signedInGet<VideoDoc>(page, restored, `/api/private-videos/${before.privateVideo.id}?depth=0`)
    expect(privateVideo.hostData.stream).to.include({ libraryId: 1002, status: 'finished' })
    expect(privateVideo.hostData.stream.videoId).to.not.equal(before.privateVideo.hostData.stream.videoId)
    await page.goto(`${restored.cmsUrl}/admin/collections/private-videos/${privateVideo.id}`)
    await page.locator('.storage-host-player video').waitFor({ timeout: 60_000 })
    await playAndSeek(page, '.storage-host-player video', 1)
    await saveScreenshot(page, 'restore-site-private-video')
  })
})
