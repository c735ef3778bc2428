/**
 * An editor's first image, in the dev-app's admin started as a user starts it (`npm start`), in headless
 * Chromium (issue 24, items 1, 2 and 5): pick a photo with the real file input, type the alt text, press
 * Save; the photo goes browser-direct to the storage host (client upload) and its thumbnail loads
 * (`naturalWidth > 0`) in the edit view, the list and a post's relationship picker, with no internal
 * `_objectKey` column anywhere; an SVG picked the same way is refused with a message on the page and
 * saves nothing, and so is an empty file ("The file is empty.", nothing put on the storage host). Screenshots: test-artifacts/screenshots/journey-image-*.png.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'

import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startDevApp, type RunningDevApp } from './support/devApp.js'
import { freePort } from './support/freePort.js'

interface ImageDoc {
  id: number
  alt: string
  filename: string
  thumbnailURL: string | null
  _objectKey?: string | null
}

describe('journey: an editor uploads an image in the admin (dev-app, npm start)', function () {
  // The first start builds the admin panel: minutes on a loaded two-core machine.
  this.timeout(30 * 60_000)
  let app: RunningDevApp
  let browser: Browser | undefined
  let page: Page
  let files: string
  /**
   * The photo the list and picker tests look for: saved through the admin in `before`, so each test
   * runs alone (`--grep`) and none depends on another one's upload.
   */
  let uploaded: ImageDoc

  before(async function () {
    browser = await launchBrowser()
    if (!browser) throw new Error('Chromium not found at /usr/bin/chromium (set CHROMIUM_PATH): the journey needs a real browser')
    files = mkdtempSync(path.join(tmpdir(), 'journey-image-'))
    app = await startDevApp({ ports: { cms: await freePort(), daemon: await freePort(), emulator: await freePort() }, readyTimeoutMs: 25 * 60_000 })
    page = await browser.newPage({ viewport: { height: 900, width: 1400 } })
    await page.goto(`${app.cmsUrl}/admin/login`)
    await page.fill('input[name="email"]', app.credentials.adminEmail)
    await page.fill('input[name="password"]', app.credentials.adminPassword)
    await page.click('button[type="submit"]')
    await page.waitForURL(`${app.cmsUrl}/admin`)
    uploaded = await api<ImageDoc>(`/api/images/${await savePhoto('harbour photo.jpg', 'Harbour at dusk (journey)')}`)
  })

  after(async function () {
    await browser?.close()
    if (app) {
      await app.stop()
      rmSync(app.dataDir, { force: true, recursive: true })
    }
    if (files) rmSync(files, { force: true, recursive: true })
  })

  const api = async <T>(route: string): Promise<T> => {
    const res = await page.request.get(`${app.cmsUrl}${route}`)
    expect(res.status(), route).to.equal(200)
    return (await res.json()) as T
  }
  /**
   * Waits until an image matching `selector` has really loaded (decoded, with a width). The admin adds a
   * cache tag to thumbnail URLs (`?<updatedAt>`), so selectors match the URL's start.
   */
  const loaded = (selector: string) =>
    page.waitForFunction((s) => [...document.querySelectorAll<HTMLImageElement>(s)].some((img) => img.complete && img.naturalWidth > 0), selector, {
      timeout: 30_000,
    })
  /** No column header, filter or cell text of the internal field. */
  const expectNoObjectKeyColumn = async () => {
    expect(await page.getByText(/_?object Key/i).count()).to.equal(0)
    expect(await page.getByText('<No _object Key>').count()).to.equal(0)
  }

  /** What an editor does: pick a photo with the file input, type its alt text, press Save. Returns the document id. */
  async function savePhoto(name: string, alt: string, screenshot?: string): Promise<number> {
    const photo = path.join(files, name)
    writeFileSync(
      photo,
      await sharp({ create: { background: { b: 160, g: 110, r: 40 }, channels: 3, height: 480, width: 640 } })
        .jpeg()
        .toBuffer(),
    )
    await page.goto(`${app.cmsUrl}/admin/collections/images/create`)
    await page.locator('input[type="file"]').setInputFiles(photo)
    await page.fill('input[name="alt"]', alt)
    if (screenshot) await saveScreenshot(page, screenshot)
    await page.getByRole('button', { name: 'Save' }).click()
    await page.waitForURL(/\/admin\/collections\/images\/\d+$/, { timeout: 120_000 })
    return Number(page.url().split('/').pop())
  }

  it('picks a photo, presses Save, and sees its thumbnail in the edit view', async function () {
    const id = await savePhoto('pier photo.jpg', 'Pier at noon (journey)', 'journey-image-1-picked')
    const saved = await api<ImageDoc>(`/api/images/${id}`)
    // Browser-direct: the file lives in its own object-key folder, and the thumbnail URL points there.
    expect(saved._objectKey, 'a client upload records its folder').to.be.a('string').and.not.equal('')
    expect(saved.thumbnailURL).to.include(`/${saved._objectKey}/`)
    expect((await fetch(saved.thumbnailURL!)).status).to.equal(200)

    await loaded(`.file-details img[src^="${saved.thumbnailURL}"]`)
    await expectNoObjectKeyColumn()
    await saveScreenshot(page, 'journey-image-2-edit-view')
  })

  it('sees the thumbnail in the list, without an internal _objectKey column', async function () {
    await page.goto(`${app.cmsUrl}/admin/collections/images`)
    await loaded(`table img[src^="${uploaded.thumbnailURL}"]`)
    await page.getByText('Harbour at dusk (journey)').first().waitFor({ state: 'visible' })
    await expectNoObjectKeyColumn()
    // Nor is it offered in the column picker.
    await page.getByRole('button', { name: /Columns/ }).click()
    // Open once it lists a column the table does not show.
    await page.getByText('Created At', { exact: true }).first().waitFor({ state: 'visible' })
    await expectNoObjectKeyColumn()
    await saveScreenshot(page, 'journey-image-3-list')
  })

  it("sees the thumbnail in a post's relationship picker, then in the post's field once chosen", async function () {
    await page.goto(`${app.cmsUrl}/admin/collections/posts/create`)
    const heroField = page.locator('.field-type.upload', { has: page.locator('label', { hasText: /^Hero Image$/ }) })
    await heroField.getByRole('button', { name: /Choose from existing/i }).click()
    const drawerImage = `.drawer img[src^="${uploaded.thumbnailURL}"], .list-drawer img[src^="${uploaded.thumbnailURL}"]`
    await loaded(drawerImage)
    await expectNoObjectKeyColumn()
    await saveScreenshot(page, 'journey-image-4-picker')
    // Choosing it puts its preview into the post's upload field.
    // The file name is the row's link, as in the list.
    await page.locator('.list-drawer, .drawer').getByText(uploaded.filename, { exact: true }).first().click()
    await loaded(`.field-type.upload img[src^="${uploaded.thumbnailURL}"]`)
    await saveScreenshot(page, 'journey-image-5-post-field')
  })

  it('picks an SVG, presses Save, and sees it refused on the page; nothing is saved', async function () {
    const svg = path.join(files, 'logo.svg')
    writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle cx="20" cy="20" r="18" fill="teal"/></svg>')
    const before = (await api<{ totalDocs: number }>('/api/images/count')).totalDocs
    await page.goto(`${app.cmsUrl}/admin/collections/images/create`)
    await page.locator('input[type="file"]').setInputFiles(svg)
    await page.fill('input[name="alt"]', 'A logo that must not be stored')
    await page.getByRole('button', { name: 'Save' }).click()
    const message = page.getByText(/SVG and XML files cannot be uploaded/)
    await message.first().waitFor({ state: 'visible', timeout: 60_000 })
    expect(await message.first().isVisible()).to.equal(true)
    await saveScreenshot(page, 'journey-image-6-svg-refused')
    expect(page.url()).to.match(/\/admin\/collections\/images\/create$/)
    expect((await api<{ totalDocs: number }>('/api/images/count')).totalDocs).to.equal(before)
  })

  it('picks an empty image, presses Save, and reads "The file is empty"; nothing reaches the storage host (issue 39 #9)', async function () {
    const empty = path.join(files, 'empty.png')
    writeFileSync(empty, '')
    // What the zone holds: every client upload is a folder of its own at the top of the zone.
    const zone = async () => {
      const res = await fetch(`${app.emulatorUrl}/storage/dev-zone/`, { headers: { AccessKey: app.credentials.storageAccessKey } })
      expect(res.status).to.equal(200)
      return ((await res.json()) as { ObjectName: string }[]).map((entry) => entry.ObjectName).sort()
    }
    const before = { count: (await api<{ totalDocs: number }>('/api/images/count')).totalDocs, zone: await zone() }
    await page.goto(`${app.cmsUrl}/admin/collections/images/create`)
    await page.locator('input[type="file"]').setInputFiles(empty)
    await page.fill('input[name="alt"]', 'An empty file')
    await page.getByRole('button', { name: 'Save' }).click()
    const message = page.getByText('The file is empty.')
    await message.first().waitFor({ state: 'visible', timeout: 60_000 })
    await saveScreenshot(page, 'journey-image-7-empty-refused')
    expect(await page.getByText(/from extension/).count(), 'not the misleading type message').to.equal(0)
    expect(page.url()).to.match(/\/admin\/collections\/images\/create$/)
    expect((await api<{ totalDocs: number }>('/api/images/count')).totalDocs).to.equal(before.count)
    expect(await zone(), 'no object, no folder').to.deep.equal(before.zone)
  })
})
