/**
 * The whole system as a user runs it: `npm start` in a child process, then the CMS admin panel, the
 * OpenAPI docs and the backup daemon's UI in headless Chromium, and a restore of the daemon's snapshot
 * compared with the live CMS's database and media.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startDevApp, type RunningDevApp } from './support/devApp.js'
import { makeTestVideo } from './support/ffmpegVideo.js'
import { sha256, walk } from './support/files.js'
import { freePort } from './support/freePort.js'
import { waitFor } from './support/waitFor.js'
import { playAndSeek } from './support/playAndSeek.js'

describe('dev-app end to end (npm start)', function () {
  // The first start builds the admin panel: minutes on a loaded two-core machine.
  this.timeout(15 * 60_000)
  let app: RunningDevApp
  let browser: Browser | undefined
  /** Ports the kernel picked free: fixed ones collide with other tests and dev-apps on a shared machine. */
  let ports: { cms: number; daemon: number; emulator: number }
  /** Logged in as the first admin user: each test that needs the admin panel starts from here, not from the login test. */
  let page: Page

  before(async function () {
    browser = await launchBrowser()
    ports = { cms: await freePort(), daemon: await freePort(), emulator: await freePort() }
    app = await startDevApp({ ports, readyTimeoutMs: 12 * 60_000 })
    page = await browser!.newPage()
    await logIn(page, app)
  })

  after(async function () {
    await browser?.close()
    if (app) {
      await app.stop()
      expect(app.output()).to.contain('[dev-app] stopped')
      // Ctrl-C leaves nothing listening.
      for (const url of [app.cmsUrl, app.daemonUrl, app.emulatorUrl]) {
        const answered = await fetch(url).then(
          () => true,
          () => false,
        )
        expect(answered, `${url} still answers after Ctrl-C`).to.equal(false)
      }
      rmSync(app.dataDir, { recursive: true, force: true })
    }
  })

  it('prints every URL, the first-login credentials and its start-up time', function () {
    const out = app.output()
    for (const url of [`${app.cmsUrl}/admin`, `${app.cmsUrl}/api`, `${app.cmsUrl}/api/docs`, `http://localhost:${ports.daemon}/`, app.emulatorUrl]) {
      expect(out).to.contain(url)
    }
    expect(out).to.contain(`login ${app.credentials.adminEmail} / ${app.credentials.adminPassword}`)
    expect(out).to.contain(`login ${app.credentials.daemonUsername} / ${app.credentials.daemonPassword}`)
    expect(out).to.match(/ready in [\d.]+ s/)
  })

  it('logs the first admin user in to the admin panel', async function () {
    // A page of its own, with no session yet (the shared page logged in before the tests).
    const context = await browser!.newContext()
    const fresh = await context.newPage()
    await logIn(fresh, app)
    await fresh.getByText('Collections').first().waitFor()
    await saveScreenshot(fresh, 'dev-app-admin-dashboard')
    await context.close()
  })

  it('uploads an image through the admin panel and lists it', async function () {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'e2e-image-')), 'e2e-upload.png')
    const bytes = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#2563eb' } })
      .png()
      .toBuffer()
    writeFileSync(file, bytes)
    await page.goto(`${app.cmsUrl}/admin/collections/images/create`)
    await page.locator('input[type="file"]').setInputFiles(file)
    await page.fill('input[name="alt"]', 'Uploaded by the e2e test')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.waitForURL(/\/admin\/collections\/images\/\d+/)
    await page.goto(`${app.cmsUrl}/admin/collections/images`)
    await page.getByText('Uploaded by the e2e test').waitFor()
    await saveScreenshot(page, 'dev-app-images-list')

    const list = (await (await fetch(`${app.cmsUrl}/api/images?where[alt][equals]=Uploaded%20by%20the%20e2e%20test`)).json()) as {
      docs: { url: string; filename: string }[]
    }
    expect(list.docs).to.have.length(1)
    const served = Buffer.from(await (await fetch(new URL(list.docs[0]!.url, app.cmsUrl))).arrayBuffer())
    expect(sha256(served)).to.equal(sha256(bytes))
  })

  it('uploads a real video through the admin panel via TUS; the webhook fills its resolutions; the panel plays it', async function () {
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
  })

  it('documents the REST API, the storage plugin endpoints included, on /api/docs', async function () {
    const spec = (await (await fetch(`${app.cmsUrl}/api/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> }
    expect(spec.openapi).to.match(/^3\.1/)
    for (const route of [
      '/api/posts',
      '/api/images/{id}',
      '/api/globals/site-settings',
      '/api/storage-host/stream/tus-auth',
      '/api/storage-host/stream/webhook',
    ]) {
      expect(spec.paths, route).to.have.property(route)
    }
    await page.goto(`${app.cmsUrl}/api/docs`)
    await page.getByText('/api/storage-host/stream/tus-auth').first().waitFor()
    await page.getByText('/api/posts/{id}').first().waitFor()
    await saveScreenshot(page, 'dev-app-api-docs')
  })

  it('runs the backup job from the daemon UI and downloads the snapshot; restoring it reproduces the CMS database and media', async function () {
    const ui = await browser!.newPage({ acceptDownloads: true })
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

    const restored = mkdtempSync(path.join(tmpdir(), 'e2e-restore-'))
    writeFileSync(path.join(restored, 'snapshot.tar.gz'), archive)
    execFileSync('tar', ['-xzf', 'snapshot.tar.gz'], { cwd: restored })
    // Media: every file of the emulated storage zone is in the snapshot, byte for byte (the zone's
    // own `private-backups/` folder, as the dev-app README says, holds the daemon's backups, which the job
    // leaves out).
    const mediaRoot = path.join(app.dataDir, 'host', 'storage', 'dev-zone')
    const mediaFiles = walk(mediaRoot).filter((f) => !path.relative(mediaRoot, f).startsWith(`private-backups${path.sep}`))
    expect(mediaFiles.length).to.be.greaterThan(0)
    for (const file of mediaFiles) {
      const copy = path.join(restored, 'media', path.relative(mediaRoot, file))
      expect(existsSync(copy), `missing in snapshot: ${copy}`).to.equal(true)
      expect(sha256(readFileSync(copy))).to.equal(sha256(readFileSync(file)))
    }
    // Database: the restored SQLite file holds the same posts and images the CMS serves.
    const dbFile = walk(path.join(restored, 'database')).find((f) => /\.(db|sqlite)$/.test(f))
    expect(dbFile, 'a database file in the snapshot').to.be.a('string')
    const { createClient } = await import('@libsql/client')
    const db = createClient({ url: `file:${dbFile}` })
    const rows = await db.execute('select title from posts order by id')
    const live = (await (await fetch(`${app.cmsUrl}/api/posts?sort=id&limit=100`)).json()) as { docs: { title: string }[] }
    expect(rows.rows.map((r) => r.title)).to.deep.equal(live.docs.map((d) => d.title))
    const images = await db.execute('select count(*) as n from images')
    const liveImages = (await (await fetch(`${app.cmsUrl}/api/images/count`)).json()) as { totalDocs: number }
    expect(Number(images.rows[0]!.n)).to.equal(liveImages.totalDocs)
    db.close()
    rmSync(restored, { recursive: true, force: true })
  })
})

/** What a person does on the login page, with the credentials `npm start` printed. */
async function logIn(page: Page, app: RunningDevApp): Promise<void> {
  await page.goto(`${app.cmsUrl}/admin/login`)
  await page.fill('input[name="email"]', app.credentials.adminEmail)
  await page.fill('input[name="password"]', app.credentials.adminPassword)
  await page.click('button[type="submit"]')
  await page.waitForURL(`${app.cmsUrl}/admin`)
}
