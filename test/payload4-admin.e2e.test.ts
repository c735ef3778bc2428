/**
 * plugin-storage in the admin panel of a real Payload 4 build (the "current generation"), in headless
 * Chromium: a Next.js app on Node 24 (the dev-app's route files, plus plugin-storage/test/payload4-app: the
 * plugin's test collections and import map), built from this checkout's sources, against the emulator.
 * - An image saved in the admin goes to the storage host by the core's own client-upload flow
 *   (`upload-instructions` answered by the plugin's adapter, PUT from the browser): it lands in its own
 *   upload folder, which only that flow creates, with its size generated beside it.
 * - A video goes through the plugin's TUS field (progress, then "Uploaded"); on save the 4.x admin's
 *   `dispatch` instruction is answered by the plugin's provider with the receipt; the host's callbacks
 *   then finish it.
 */
import { readFile } from 'node:fs/promises'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'

import { buildPayload4Admin, preparePayload4Project, startPayload4Admin, type RunningAdmin } from '../plugin-storage/test/support/payload4Project.js'
import { fakeMp4 } from '../dev-app/test/emulator/helpers/fakeMp4.js'
import { launchBrowser, saveScreenshot } from './support/browser.js'

const email = 'editor@example.com'
const password = 'payload4-admin-pass'

describe('plugin-storage in the Payload 4 admin panel', function () {
  // First run: npm install of Payload 4 + Next.js, then a production build of the admin.
  this.timeout(20 * 60_000)
  let emu: RunningEmulator
  let admin: RunningAdmin
  let browser: Browser | undefined
  let page: Page
  let token: string

  const api = async <T>(route: string): Promise<T> => (await (await fetch(`${admin.url}${route}`, { headers: { Authorization: `JWT ${token}` } })).json()) as T

  before(async function () {
    browser = await launchBrowser()
    const project = await preparePayload4Project((line) => console.log(`      ${line}`))
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
  })

  after(async () => {
    await browser?.close()
    await admin?.close()
    await emu?.close()
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

  it('uploads a video through the TUS field and saves it by the dispatch instruction', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'p4-admin-video-'))
    const file = path.join(dir, 'admin-clip.mp4')
    const bytes = fakeMp4({ height: 720, mediaBytes: 2 * 1024 * 1024, width: 1280 })
    writeFileSync(file, bytes)
    await page.goto(`${admin.url}/admin/collections/videos/create`)
    await page.locator('input[type="file"]').setInputFiles(file)
    await page.fill('input[name="title"]', 'Clip from the 4.x admin')
    await page.getByRole('button', { name: /^Upload admin-clip\.mp4/ }).click()
    await page.getByText('Uploaded. Save the document to attach the video.').waitFor({ timeout: 120_000 })
    await page.getByRole('button', { name: 'Save' }).click()
    await page.waitForURL(/\/admin\/collections\/videos\/\d+/)
    await saveScreenshot(page, 'payload4-admin-video-saved')

    const id = page.url().split('/').pop()
    type Stream = { videoId: string; status: string; resolutions?: unknown[] }
    let stream: Stream | undefined
    for (let i = 0; i < 100; i++) {
      stream = (await api<{ hostData?: { stream?: Stream } }>(`/api/videos/${id}?depth=0`)).hostData?.stream
      if (stream?.status === 'finished') break
      await new Promise((r) => setTimeout(r, 200))
    }
    expect(stream?.videoId, 'the document is bound to the uploaded video').to.be.a('string')
    expect(emu.videos().find((v) => v.guid === stream!.videoId)?.storageSize).to.equal(bytes.length)
    expect(stream!.status).to.equal('finished')
    expect(stream!.resolutions!.length).to.be.greaterThan(0)
  })
})
