/**
 * @module test/support/devAppSteps
 * The longer steps of the dev-app e2e scenario (`devAppScenario.ts`), each what a person does in a browser
 * or what a script does over the daemon's API, with its checks: a real video uploaded in the admin panel
 * and played back, the `cms` job run from the daemon's UI with its snapshot downloaded, and a session of
 * the daemon's API.
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { saveScreenshot } from './browser.js'
import type { RunningDevApp } from './devApp.js'
import { makeTestVideo } from './ffmpegVideo.js'
import { sha256, walk } from './files.js'
import { playAndSeek } from './playAndSeek.js'
import { waitFor } from './waitFor.js'

/** What a person does on the login page, with the credentials `npm start` printed. */
export async function logIn(page: Page, app: RunningDevApp): Promise<void> {
  await page.goto(`${app.cmsUrl}/admin/login`)
  await page.fill('input[name="email"]', app.credentials.adminEmail)
  await page.fill('input[name="password"]', app.credentials.adminPassword)
  await page.click('button[type="submit"]')
  await page.waitForURL(`${app.cmsUrl}/admin`)
}

/** Uploads a real video via TUS in the admin panel, waits for the webhook's resolutions, and plays it there. */
export async function uploadVideoInAdmin(page: Page, app: RunningDevApp): Promise<void> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'e2e-video-')), 'e2e-video.mp4')
  makeTestVideo(file, { width: 1280, height: 720, seconds: 4 })
  await page.goto(`${app.cmsUrl}/admin/collections/videos/create`)
  await page.locator('input[type="file"]').setInputFiles(file)
  await page.fill('input[name="title"]', 'Video uploaded by the e2e test')
  // The upload starts on the pick and shows its progress; Save attaches the video once it is done.
  await page.locator('.storage-host-upload progress').waitFor()
  await page.getByText('Uploaded. Save to attach the video.').waitFor({ timeout: 120_000 })
  await saveScreenshot(page, 'dev-app-video-uploaded')
  await page.getByRole('button', { name: 'Save' }).click()
  await page.waitForURL(/\/admin\/collections\/videos\/\d+/)
  const id = page.url().split('/').pop()

  type Stream = { videoId: string; status: string; resolutions?: { resolution: string; url: string }[] }
  let stream: Stream | undefined
  await waitFor(async () => {
    const doc = (await (await fetch(`${app.cmsUrl}/api/videos/${id}`)).json()) as { hostData?: { stream?: Stream } }
    stream = doc.hostData?.stream
    return (stream?.resolutions?.length ?? 0) > 0
  }, 180_000)
  expect(stream!.status).to.equal('finished')
  expect(stream!.resolutions!.map((r) => r.resolution)).to.include('720p')
  // The video really is on the emulated streaming host, playable from its CDN: a variant playlist too.
  const playlist = await fetch(`${app.emulatorUrl}/stream-cdn/1001/${stream!.videoId}/playlist.m3u8`)
  expect(playlist.status).to.equal(200)
  expect(await playlist.text()).to.contain('720p/video.m3u8')
  expect((await fetch(`${app.emulatorUrl}/stream-cdn/1001/${stream!.videoId}/720p/video.m3u8`)).status).to.equal(200)
  // On screen: the video panel with a player that plays and seeks, no failure message.
  await page.locator('.storage-host-video-panel .storage-host-player video').waitFor({ timeout: 60_000 })
  await playAndSeek(page, '.storage-host-player video', 2)
  expect(await page.locator('.storage-host-player__failure').count()).to.equal(0)
  await saveScreenshot(page, 'dev-app-video-saved')
}

/**
 * What an editor does in any upload collection: pick `file`, fill the title, press Save (for a video, once its
 * upload to the library is done). Resolves with the saved document's id.
 */
export async function saveUploadInAdmin(page: Page, app: RunningDevApp, collection: string, file: string, title: string): Promise<number> {
  await page.goto(`${app.cmsUrl}/admin/collections/${collection}/create`)
  await page.locator('input[type="file"]').setInputFiles(file)
  await page.fill('input[name="title"]', title)
  if (/\.(mp4|webm|mov)$/.test(file)) await page.getByText('Uploaded. Save to attach the video.').waitFor({ timeout: 120_000 })
  await page.getByRole('button', { name: 'Save' }).click()
  await page.waitForURL(new RegExp(`/admin/collections/${collection}/\\d+$`), { timeout: 120_000 })
  return Number(page.url().split('/').pop())
}

/** A read of a members-only collection as the signed-in editor (the session cookie, from the admin's origin). */
export async function signedInGet<T>(page: Page, app: RunningDevApp, route: string): Promise<T> {
  const res = await page.request.get(`${app.cmsUrl}${route}`, { headers: { origin: app.cmsUrl } })
  expect(res.status(), `${route}: ${await res.text()}`).to.equal(200)
  return (await res.json()) as T
}

/**
 * Logs in to the daemon's UI, runs the `cms` job with "Run now", follows its live log to the commit and
 * downloads the snapshot; checks it is the one on the local disk storage, byte for byte. Returns its bytes.
 */
export async function runCmsJobFromUi(browser: Browser, app: RunningDevApp): Promise<Buffer> {
  const ui = await browser.newPage({ acceptDownloads: true })
  await ui.goto(`${app.daemonUrl}/`)
  await ui.waitForURL(/\/login/)
  await ui.fill('input[name=username]', app.credentials.daemonUsername)
  await ui.fill('input[name=password]', app.credentials.daemonPassword)
  await ui.keyboard.press('Enter')
  await ui.locator('tr[data-job="cms"]').waitFor()
  await saveScreenshot(ui, 'dev-app-daemon-dashboard')
  await ui.locator('a', { hasText: /^cms$/ }).click()
  await ui.locator('.stream-state.live').waitFor()
  await ui.getByRole('button', { name: 'Run now' }).click()
  await ui.locator('#action-feedback', { hasText: 'Run started' }).waitFor()
  // The run's lines arrive live; its last one is the commit of the snapshot.
  await ui.locator('.log-line', { hasText: /committed cms-/ }).waitFor({ timeout: 120_000 })
  await ui.locator('.result.ok').waitFor({ timeout: 30_000 })
  await ui.locator('tr[data-snapshot]').first().waitFor()
  await saveScreenshot(ui, 'dev-app-daemon-job')
  const [download] = await Promise.all([ui.waitForEvent('download'), ui.locator('a.download').first().click()])
  const archive = readFileSync((await download.path())!)
  // The same snapshot sits on the local disk storage, byte for byte.
  const stored = walk(path.join(app.dataDir, 'backups')).find((f) => f.endsWith(download.suggestedFilename()))
  expect(stored, `no ${download.suggestedFilename()} in the disk storage`).to.be.a('string')
  expect(sha256(readFileSync(stored!))).to.equal(sha256(archive))
  await ui.close()
  return archive
}

/** Logs in to the daemon's API with the credentials `npm start` printed; the session cookie. */
export async function logInToDaemon(app: RunningDevApp): Promise<string> {
  const login = await fetch(`${app.daemonUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: app.credentials.daemonUsername, password: app.credentials.daemonPassword }),
  })
  expect(login.status).to.equal(200)
  return login.headers.get('set-cookie')!.split(';')[0]!
}
