/**
 * The dev-app as a site that outgrew one machine runs it: `CMS_INSTANCES=2 npm start` on PostgreSQL, two CMS
 * processes behind the dev-app's round-robin proxy on the CMS port (dev-app/src/start/cmsInstances.ts), the
 * editor's journeys in Chromium through the proxy. One editor's pages and API calls are answered by both
 * instances; an image's upload is authorised on one and saved on the other, and its receipt, replayed on the
 * first, is refused; a video's tus-auth goes to one instance and its save to the other, the host's webhooks
 * reach them through the proxy, and the player plays. Pinning a request (`X-Dev-App-Instance`) is what makes
 * "the other instance" certain rather than likely; everything else is the proxy's own turn-taking.
 * The same site's second storage zone and second video library, picked in the admin like the first ones: a
 * members' document goes to the documents zone only, a private video to the private library only, and plays.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page, Request, Route } from 'playwright-core'
import sharp from 'sharp'

import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startDevApp, type RunningDevApp } from './support/devApp.js'
import { postgresDatabase } from './support/devAppDatabases.js'
import { logIn, saveUploadInAdmin, signedInGet as signedInGetAs } from './support/devAppSteps.js'
import { makeTestVideo, requireFfmpeg } from './support/ffmpegVideo.js'
import { freePort } from './support/freePort.js'
import { playAndSeek } from './support/playAndSeek.js'

const INSTANCE = 'x-dev-app-instance'

/** Sends the browser's requests matching `pattern` (and `method`) to instance `n`, keeping each one sent. */
async function pinRequests(page: Page, pattern: string, method: string, n: 1 | 2): Promise<Request[]> {
  const sent: Request[] = []
  await page.route(pattern, async (route: Route) => {
    const request = route.request()
    if (request.method() !== method) return route.fallback()
    sent.push(request)
    await route.continue({ headers: { ...request.headers(), [INSTANCE]: String(n) } })
  })
  return sent
}

describe('two CMS instances behind the dev-app proxy (CMS_INSTANCES=2, PostgreSQL, Chromium)', function () {
  const database = postgresDatabase()
  this.timeout(database.timeoutMs)
  let app: RunningDevApp
  let browser: Browser | undefined
  let page: Page
  let work: string
  /** The instance that answered each of the browser's requests to the CMS, in order. */
  const answeredBy: string[] = []

  before(async function () {
    requireFfmpeg()
    browser = await launchBrowser()
    work = mkdtempSync(path.join(tmpdir(), 'two-instances-'))
    const dataDir = path.join(work, 'data')
    const env = await database.start(dataDir)
    app = await startDevApp({
      dataDir,
      env: { ...env, CMS_INSTANCES: '2', EMULATOR_ENCODING_STEP_MS: '300' },
      ports: { cms: await freePort(), daemon: await freePort(), emulator: await freePort() },
      readyTimeoutMs: database.readyTimeoutMs,
    })
    page = await browser.newPage({ viewport: { height: 900, width: 1400 } })
    page.on('response', (response) => {
      const instance = response.headers()[INSTANCE]
      if (instance && response.url().startsWith(app.cmsUrl)) answeredBy.push(instance)
    })
    await logIn(page, app)
  })

  after(async function () {
    await browser?.close()
    await app?.stop()
    await database.stop()
    if (work) rmSync(work, { force: true, recursive: true })
  })

  const signedInGet = <T>(route: string) => signedInGetAs<T>(page, app, route)

  it('starts two instances behind the proxy, and one editor is answered by both', async function () {
    expect(app.output()).to.match(/CMS admin +http:\/\/localhost:\d+\/admin \(2 instances behind a round-robin proxy: 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+\)/)
    for (const list of ['images', 'videos', 'posts']) {
      await page.goto(`${app.cmsUrl}/admin/collections/${list}`)
      await page.locator('.collection-list').first().waitFor()
    }
    expect(new Set(answeredBy), `instances that answered: ${answeredBy.join(' ')}`).to.deep.equal(new Set(['1', '2']))
  })

  it('an image authorised on instance 1 and saved on instance 2 shows its thumbnail; its receipt replayed on instance 1 is refused', async function () {
    const photo = path.join(work, 'two instances photo.jpg')
    writeFileSync(
      photo,
      await sharp({ create: { background: { b: 60, g: 140, r: 200 }, channels: 3, height: 480, width: 640 } })
        .jpeg()
        .toBuffer(),
    )
    const signs = await pinRequests(page, '**/api/storage-host/storage/upload', 'POST', 1)
    const saves = await pinRequests(page, '**/api/images?**', 'POST', 2)
    await page.goto(`${app.cmsUrl}/admin/collections/images/create`)
    await page.locator('input[type="file"]').setInputFiles(photo)
    await page.fill('input[name="alt"]', 'Saved across two instances')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.waitForURL(/\/admin\/collections\/images\/\d+$/, { timeout: 120_000 })
    await page.unrouteAll({ behavior: 'wait' })
    expect(signs.length, 'the upload was authorised through the proxy').to.be.greaterThan(0)
    expect(saves.length, 'the save went through the proxy').to.equal(1)
    const [signed, saved] = [await signs[0]!.response(), await saves[0]!.response()]
    expect([signed?.headers()[INSTANCE], saved?.headers()[INSTANCE]]).to.deep.equal(['1', '2'])
    expect(saved?.status()).to.equal(201)

    const id = Number(page.url().split('/').pop())
    const doc = (await (await page.request.get(`${app.cmsUrl}/api/images/${id}`)).json()) as { thumbnailURL: string }
    await page.waitForFunction(
      (src) => [...document.querySelectorAll<HTMLImageElement>('.file-details img')].some((img) => img.src.startsWith(src) && img.naturalWidth > 0),
      doc.thumbnailURL,
      { timeout: 30_000 },
    )
    await saveScreenshot(page, 'two-instances-image-saved')

    // The same save, byte for byte and by the same editor (the session cookie, from the admin's origin), sent to
    // the instance that did not save it: the receipt is spent in the database.
    const replay = await page.request.post(saves[0]!.url(), {
      data: saves[0]!.postDataBuffer()!,
      headers: { 'content-type': saves[0]!.headers()['content-type']!, origin: app.cmsUrl, [INSTANCE]: '1' },
    })
    expect(replay.headers()[INSTANCE]).to.equal('1')
    expect(replay.status(), await replay.text()).to.equal(400)
    expect(await replay.text()).to.contain('This upload receipt was already used')
    const same = (await (await page.request.get(`${app.cmsUrl}/api/images?where[alt][equals]=Saved across two instances&depth=0`)).json()) as {
      totalDocs: number
    }
    expect(same.totalDocs, 'one document for one receipt').to.equal(1)
  })

  it("a video's tus-auth on instance 2 and its save on instance 1: the webhooks arrive through the proxy and it plays", async function () {
    const file = path.join(work, 'two-instances-clip.mp4')
    makeTestVideo(file, { width: 640, height: 360, seconds: 4 })
    const authorisations = await pinRequests(page, '**/api/storage-host/stream/tus-auth', 'POST', 2)
    const saves = await pinRequests(page, '**/api/videos?**', 'POST', 1)
    await page.goto(`${app.cmsUrl}/admin/collections/videos/create`)
    await page.locator('input[type="file"]').setInputFiles(file)
    await page.fill('input[name="title"]', 'Played across two instances')
    await page.getByText('Uploaded. Save to attach the video.').waitFor({ timeout: 120_000 })
    await page.getByRole('button', { name: 'Save' }).click()
    await page.waitForURL(/\/admin\/collections\/videos\/\d+$/, { timeout: 120_000 })
    await page.unrouteAll({ behavior: 'wait' })
    expect(authorisations.length, 'tus-auth went through the proxy').to.be.greaterThan(0)
    const [authorised, saved] = [await authorisations[0]!.response(), await saves[0]!.response()]
    expect([authorised?.headers()[INSTANCE], saved?.headers()[INSTANCE]]).to.deep.equal(['2', '1'])

    await page.locator('.storage-host-player video').waitFor({ timeout: 180_000 })
    await playAndSeek(page, '.storage-host-player video', 2)
    expect(await page.locator('.storage-host-player__failure').count()).to.equal(0)
    await saveScreenshot(page, 'two-instances-video-playing')
    // Every callback of the host went through the proxy to an instance and was taken (the lines the proxy prints).
    const webhooks = [...app.output().matchAll(/\[proxy\] POST \/api\/storage-host\/stream\/webhook → cms-(\d) \((\d+)\)/g)]
    expect(webhooks.length, 'webhooks through the proxy').to.be.greaterThan(0)
    expect(webhooks.map((w) => w[2])).to.satisfy((statuses: string[]) => statuses.every((s) => s === '200'))
    console.log(`      webhooks answered by: ${webhooks.map((w) => `cms-${w[1]}`).join(', ')}`)
  })

  it('a document saved in the admin goes to the documents zone only, and its link serves it', async function () {
    const file = path.join(work, 'members handbook.txt')
    writeFileSync(file, 'Members handbook, kept in a zone of its own.\n')
    await saveUploadInAdmin(page, app, 'documents', file, 'Members handbook')
    // On screen: the saved file's name, linking to the file.
    const link = page.locator('.file-details a', { hasText: /members[ _-]handbook\.txt/ }).first()
    await link.waitFor()
    await saveScreenshot(page, 'two-zones-document-saved')
    const doc = await signedInGet<{ filename: string; url: string }>(`/api/documents/${page.url().split('/').pop()}`)
    // The editor's link serves the file; to someone signed out the members' file route answers 403.
    const served = await page.request.get(doc.url, { headers: { origin: app.cmsUrl } })
    expect(await served.text()).to.equal('Members handbook, kept in a zone of its own.\n')
    expect((await fetch(doc.url)).status).to.equal(403)

    const listed = async (zone: string, key: string): Promise<string[]> => {
      const found: string[] = []
      const walk = async (folder: string): Promise<void> => {
        const res = await fetch(`${app.emulatorUrl}/storage/${zone}/${folder}`, { headers: { AccessKey: key } })
        for (const entry of (await res.json()) as Array<{ ObjectName: string; IsDirectory: boolean }>) {
          if (entry.IsDirectory) await walk(`${folder}${entry.ObjectName}/`)
          else found.push(`${folder}${entry.ObjectName}`)
        }
      }
      await walk('')
      return found
    }
    expect((await listed('dev-documents', app.credentials.documentsAccessKey)).filter((f) => f.endsWith(doc.filename))).to.have.length(1)
    expect((await listed('dev-zone', app.credentials.storageAccessKey)).filter((f) => f.endsWith(doc.filename))).to.deep.equal([])
    // The documents zone's password is its own.
    expect((await fetch(`${app.emulatorUrl}/storage/dev-documents/`, { headers: { AccessKey: app.credentials.storageAccessKey } })).status).to.equal(401)
  })

  it('a private video uploaded in the admin goes to the private library only, is encoded and plays', async function () {
    const file = path.join(work, 'private-clip.mp4')
    makeTestVideo(file, { width: 640, height: 360, seconds: 4 })
    await saveUploadInAdmin(page, app, 'private-videos', file, 'A private clip')
    await page.locator('.storage-host-player video').waitFor({ timeout: 180_000 })
    await playAndSeek(page, '.storage-host-player video', 2)
    await saveScreenshot(page, 'two-libraries-private-video-playing')

    const doc = await signedInGet<{ hostData?: { stream?: { videoId: string; status: string } } }>(`/api/private-videos/${page.url().split('/').pop()}`)
    const guid = doc.hostData?.stream?.videoId
    expect(doc.hostData?.stream?.status).to.equal('finished')
    const inLibrary = async (id: number, key: string) =>
      (await fetch(`${app.emulatorUrl}/stream/library/${id}/videos/${guid}`, { headers: { AccessKey: key } })).status
    expect(await inLibrary(1002, app.credentials.privateStreamApiKey)).to.equal(200)
    expect(await inLibrary(1001, app.credentials.streamApiKey)).to.equal(404)
  })
})
