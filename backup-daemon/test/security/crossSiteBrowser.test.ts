/**
 * CSRF in a real browser: the admin is logged into a real daemon at 127.0.0.1:<port>; a page served by
 * another HTTP server on another port of the same host (same *site*, so SameSite=Lax still sends the
 * session cookie) submits a form and a no-cors fetch to `POST /api/v1/jobs/<job>/run`. Nothing may
 * start. The daemon's own UI must still run the job.
 *
 * Each test has its own browser context and logs in itself, and each attack compares the job's state
 * before and after it, so any test runs alone with `--grep`.
 */
import { expect } from 'chai'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser } from '../ui/support/browser.js'
import { startDaemon, type RunningDaemon } from '../ui/support/realDaemon.js'
import { logInWithKeyboard, makeJobs } from '../ui/support/uiFixture.js'
import { listBackups } from '../ui/support/uiApi.js'
import { recordFeedback } from '../ui/support/uiJourney.js'

describe('security: a page on another port of the same host cannot start a run (Chromium)', function () {
  this.timeout(90_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let evil: Server | undefined
  let evilOrigin: string
  let context: BrowserContext
  let page: Page
  let dir: string
  /** The headers of each request the evil server answered, to show what the browser sent. */
  const evilRequests: IncomingHttpHeaders[] = []

  before(async function () {
    browser = await launchBrowser()
    dir = mkdtempSync(join(tmpdir(), 'sec-csrf-'))
    daemon = await startDaemon({ dir, jobs: makeJobs(dir) })
    const target = `${daemon.url}/api/v1/jobs/small/run`
    evil = createServer((req, res) => {
      evilRequests.push(req.headers)
      res.setHeader('content-type', 'text/html')
      if (req.url === '/form.html') {
        res.end(`<!doctype html><form id="f" method="post" action="${target}"><input name="x" value="1"></form>
          <script>document.getElementById('f').submit()</script>`)
      } else if (req.url === '/fetch.html') {
        res.end(`<!doctype html><script>
          window.done = fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
            headers: { 'content-type': 'text/plain' }, body: 'x' }).then(() => 'sent', (e) => 'error ' + e)
        </script>`)
      } else res.end('<!doctype html><p>evil</p>')
    })
    evil.listen(0, '127.0.0.1')
    await once(evil, 'listening')
    evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`
  })

  beforeEach(async () => {
    context = await browser!.newContext({ baseURL: daemon!.url })
    page = await context.newPage()
  })
  afterEach(async () => {
    await context?.close()
  })

  after(async () => {
    await browser?.close()
    evil?.close()
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const jobStatus = async () => (await (await page.request.get('/api/v1/jobs/small/status')).json()) as { status: string; lastRun?: string }
  const snapshots = () => (existsSync(join(dir, 'store-small')) ? readdirSync(join(dir, 'store-small'), { recursive: true }).length : 0)

  /** The admin logs in through the daemon's own login page (this test's context holds the session). */
  const logIn = async () => {
    await page.goto('/login')
    await logInWithKeyboard(page)
    await page.waitForURL((url) => !url.pathname.startsWith('/login'))
  }
  /** What an attack must leave unchanged: the job's status and last run, and the snapshots in its storage. */
  const jobState = async () => {
    const { status, lastRun } = await jobStatus()
    return { status, lastRun: lastRun ?? '', snapshots: snapshots() }
  }

  it('the admin logs in through the daemon UI (its own Origin passes)', async () => {
    await logIn()
    const cookies = await context.cookies(daemon!.url)
    expect(cookies.map((c) => c.name)).to.include('backup_session')
  })

  it('a form auto-submitted from the other port is refused with 403 and no run starts', async () => {
    await logIn()
    const before = await jobState()
    expect(before.status).to.equal('idle')
    const evilBefore = evilRequests.length
    const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/jobs/small/run'))
    await page.goto(`${evilOrigin}/form.html`)
    const res = await response
    // The browser did send the session cookie (same site): only the Origin check stops it.
    expect(await res.request().headerValue('cookie')).to.match(/backup_session=/)
    expect(await res.request().headerValue('origin')).to.equal(evilOrigin)
    expect(res.status()).to.equal(403)
    expect((await res.json()).detail).to.match(/cross-site request refused/)
    expect(evilRequests.length).to.be.greaterThan(evilBefore)
    expect(await jobState()).to.deep.equal(before)
  })

  it('a no-cors fetch with credentials from the other port is refused too', async () => {
    await logIn()
    const before = await jobState()
    expect(before.status).to.equal('idle')
    const response = page.waitForResponse((r) => r.url().endsWith('/api/v1/jobs/small/run'))
    await page.goto(`${evilOrigin}/fetch.html`)
    expect(await page.evaluate('window.done')).to.equal('sent')
    const res = await response
    expect(res.status()).to.equal(403)
    expect(await jobState()).to.deep.equal(before)
  })

  it("the daemon's own UI still runs the job", async () => {
    await logIn()
    const before = await jobState()
    const listed = (await listBackups(page.request, 'small')).length
    await page.goto('/jobs/small')
    const feedbackShown = await recordFeedback(page)
    await page.getByRole('button', { name: 'Run now' }).click()
    await feedbackShown('Run started at ')
    await page.locator('tr[data-snapshot]').nth(listed).waitFor({ timeout: 30_000 })
    expect((await jobStatus()).lastRun)
      .to.be.a('string')
      .and.not.equal(before.lastRun)
    expect(snapshots()).to.be.greaterThan(before.snapshots)
  })
})
