/**
 * plugin-storage in the admin panel of a real Payload 4 build (the "current generation"), in headless
 * Chromium: a Next.js app on Node 24 (the dev-app's route files, plus plugin-storage/test/payload4-app: the
 * plugin's test collections and import map), built from this checkout's sources, against the emulator.
 * - An image saved in the admin goes to the storage host by the core's own client-upload flow
 *   (`upload-instructions` answered by the plugin's adapter, PUT from the browser): it lands in its own
 *   upload folder, which only that flow creates, with its size generated beside it.
 * - A video picked in the upload field starts its TUS upload at once (the plugin's TUS field; progress,
 *   then "Uploaded", in its video panel); on save the 4.x admin's `dispatch` instruction is answered by the
 *   plugin's provider with the receipt; the host's callbacks then finish it, and the panel plays it.
 *
 * Runs once (scripts/run-tests.mjs): the Payload 4 CMS it tests runs on the project's own Node 24 in either
 * pass of .ci/run, so the second pass would repeat it.
 */
import { readFile } from 'node:fs/promises'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'

import { buildPayload4Admin, preparePayload4Project, startPayload4Admin, type Payload4Project } from '../plugin-storage/test/support/payload4Project.js'
import type { RunningNext } from '../plugin-storage/test/support/nextProject.js'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { makeTestVideo } from './support/ffmpegVideo.js'
import { playAndSeek } from './support/playAndSeek.js'

const email = 'editor@example.com'
const password = 'payload4-admin-pass'

describe('plugin-storage in the Payload 4 admin panel', function () {
  // First run: npm install of Payload 4 + Next.js, then a production build of the admin.
  this.timeout(20 * 60_000)
  let emu: RunningEmulator
  let admin: RunningNext
  let browser: Browser | undefined
  let page: Page
  let token: string
  let project: Payload4Project | undefined
  const browserErrors: string[] = []

  const api = async <T>(route: string): Promise<T> => (await (await fetch(`${admin.url}${route}`, { headers: { Authorization: `JWT ${token}` } })).json()) as T

  before(async function () {
    browser = await launchBrowser()
    project = await preparePayload4Project((line) => console.log(`      ${line}`))
    await buildPayload4Admin(project, (line) => console.log(`      ${line}`))
    emu = await startEmulator({ stream: { encodingStepMs: 50 } })
    admin = await startPayload4Admin(project, emu, { scenario: 'default' })
    emu.setWebhookUrl(`${admin.url}/api/storage-host/stream/webhook`)
    const registered = await fetch(`${admin.url}/api/users/first-register`, {
      body: JSON.stringify({ email, password }),
      headers: { 'Content-Type': 'application/json' },
      method: 'POST',
    })
    expect(registered.status, await registered.clone().text()).to.equal(200)
    token = ((await registered.json()) as { token: string }).token
    page = await browser!.newPage()
    page.on('pageerror', (err) => browserErrors.push(err.message))
  })

  // A failed step leaves what the page showed, what the browser threw and the end of the server's log.
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !page) return
    const shot = await saveScreenshot(page, `payload4-admin-failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`)
    console.log(`      screenshot: ${shot}\n      page errors: ${JSON.stringify(browserErrors)}\n      server log:\n${admin?.output().slice(-3000)}`)
  })

  after(async () => {
    await browser?.close()
    await admin?.close()
    await emu?.close()
    project?.release()
  })

  it('logs in to the 4.x admin', async () => {
    await page.goto(`${admin.url}/admin/login`)
    await page.fill('input[name="email"]', email)
    await page.fill('input[name="password"]', password)
    await page.click('button[type="submit"]')
    await page.waitForURL(`${admin.url}/admin`)
    await page.getByText('Collections').first().waitFor()
  })

  it('saves an image through the core client-upload flow: upload-instructions, then the browser PUTs to the host', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'p4-admin-image-'))
    const file = path.join(dir, 'admin-photo.png')
    const bytes = await sharp({ create: { background: '#16a34a', channels: 3, height: 300, width: 500 } })
      .png()
      .toBuffer()
    writeFileSync(file, bytes)
    const instructionCalls: string[] = []
    page.on('request', (req) => {
      if (req.url().endsWith('/api/upload-instructions')) instructionCalls.push(req.postData() ?? '')
    })
    await page.goto(`${admin.url}/admin/collections/media/create`)
    await page.locator('input[type="file"]').setInputFiles(file)
    await page.fill('input[name="alt"]', 'Saved in the 4.x admin')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.waitForURL(/\/admin\/collections\/media\/\d+/)
    await saveScreenshot(page, 'payload4-admin-image-saved')
    expect(instructionCalls.length, 'the admin asked upload-instructions').to.equal(1)

    const id = page.url().split('/').pop()
    const doc = await api<{ filename: string; prefix: string; sizes: { thumbnail: { filename: string } } }>(`/api/media/${id}?depth=0`)
    expect(doc.prefix, 'a client upload lives in its own folder').to.match(/^[0-9a-f-]{36}$/)
    const stored = emu.storedFilePath(`${doc.prefix}/${doc.filename}`)
    expect(stored, 'the original is on the storage host').to.be.a('string')
    expect((await readFile(stored!)).equals(bytes)).to.equal(true)
    expect(emu.storedFilePath(`${doc.prefix}/${doc.sizes.thumbnail.filename}`), 'its size beside it').to.be.a('string')
  })

  it('uploads a real video through the TUS field, saves it by the dispatch instruction, and the panel plays it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'p4-admin-video-'))
    const file = path.join(dir, 'admin-clip.mp4')
    const size = makeTestVideo(file, { height: 720, seconds: 4, width: 1280 })
    await page.goto(`${admin.url}/admin/collections/videos/create`)
    // The 4.x admin renders nothing for a component missing from the import map; only its server log says so.
    expect(admin.output(), 'every plugin component of the edit view is in the import map').not.to.match(/not found in importMap \{\s*key: '@hosted-media\//)
    await page.locator('input[type="file"]').setInputFiles(file)
    await page.fill('input[name="title"]', 'Clip from the 4.x admin')
    // The upload starts on the pick; Save attaches the video once it is done.
    await page.getByText('Uploaded. Save to attach the video.').waitFor({ timeout: 120_000 })
    await page.getByRole('button', { name: 'Save' }).click()
    await page.waitForURL(/\/admin\/collections\/videos\/\d+/)
    await saveScreenshot(page, 'payload4-admin-video-saved')

    const id = page.url().split('/').pop()
    type Stream = { videoId: string; status: string; resolutions?: unknown[] }
    // Encoding is real (ffmpeg): wait for the finished state within a deadline, not a fixed count of polls.
    let stream: Stream | undefined
    const deadline = Date.now() + 180_000
    while ((stream = (await api<{ hostData?: { stream?: Stream } }>(`/api/videos/${id}?depth=0`)).hostData?.stream)?.status !== 'finished') {
      if (Date.now() > deadline) throw new Error(`video not finished within 180 s: ${JSON.stringify(stream)}`)
      await new Promise((r) => setTimeout(r, 500))
    }
    expect(stream?.videoId, 'the document is bound to the uploaded video').to.be.a('string')
    expect(emu.videos().find((v) => v.guid === stream!.videoId)?.storageSize).to.equal(size)
    expect(stream!.resolutions!.length).to.be.greaterThan(0)
    // On screen: the video panel's player plays and seeks, with no failure message.
    await page.locator('.storage-host-video-panel .storage-host-player video').waitFor({ timeout: 60_000 })
    await playAndSeek(page, '.storage-host-player video', 2)
    expect(await page.locator('.storage-host-player__failure').count()).to.equal(0)
    await saveScreenshot(page, 'payload4-admin-video-playing')
  })
})
