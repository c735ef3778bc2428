/**
 * Browser tests of the web UI in headless Chromium against a real daemon process: login, dashboard,
 * live log, run and cancel, download, config, system log, session expiry. Screenshots of each page go
 * to test-artifacts/screenshots/ui-*.png.
 *
 * The daemon and browser are shared, but no test relies on another: each opens its own logged-in page
 * (a fresh browser context, `journeys`), makes the snapshot it needs itself (`ensureBackup`), and its
 * page is checked for script errors afterwards, so any one runs alone with `--grep`.
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startDaemon, type RunningDaemon } from './support/realDaemon.js'
import { findFile, logInWithKeyboard, makeJobs, readSplitSet } from './support/uiFixture.js'
import { ensureBackup, listBackups } from './support/uiApi.js'
import { journeys, recordFeedback } from './support/uiJourney.js'

describe('web UI in Chromium against a real daemon', function () {
  this.timeout(60_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let dir: string

  before(async function () {
    browser = await launchBrowser()
    dir = mkdtempSync(join(tmpdir(), 'ui-browser-'))
    daemon = await startDaemon({ dir, jobs: makeJobs(dir) })
  })

  after(async () => {
    if (daemon && daemon.process.exitCode !== null) console.log(`daemon output:\n${daemon.output()}`)
    await browser?.close()
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const journey = journeys(() => ({ browser: browser!, daemon: daemon! }))

  journey(
    'sends a visitor to the login page, refuses a wrong password and returns to the page asked for',
    async ({ page }) => {
      await page.goto('/jobs/small')
      await page.waitForURL(/\/login\?next=%2Fjobs%2Fsmall/)
      await logInWithKeyboard(page, 'wrong password')
      await page.getByRole('alert').filter({ hasText: 'Wrong username or password' }).waitFor()
      await saveScreenshot(page, 'ui-login')
      await page.fill('input[name=username]', '')
      await page.fill('input[name=password]', '')
      await page.focus('input[name=username]')
      await logInWithKeyboard(page)
      await page.waitForURL(/\/jobs\/small$/)
      await page.getByRole('heading', { name: 'small', exact: true }).waitFor()
    },
    { loggedIn: false },
  )

  journey('shows every job on the dashboard with status, schedule in words and cron, and active or paused', async ({ page }) => {
    await page.goto('/jobs/small')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click()
    await page.waitForSelector('tr[data-job="archive"]')
    const row = (name: string) => page.locator(`tr[data-job="${name}"]`)
    expect(await row('small').locator('.schedule-words').textContent()).to.equal('every day at 03:00')
    expect(await row('small').locator('.cron').textContent()).to.equal('0 3 * * *')
    expect(await row('huge').locator('.schedule-words').textContent()).to.equal('manual runs only')
    expect(await row('archive').locator('.schedule-words').textContent()).to.equal('on Sunday at 04:30')
    expect(await row('archive').locator('.badge.paused').textContent()).to.equal('paused')
    // `archive` is paused and no test runs it, so it has never run whatever ran before.
    expect(await row('archive').locator('[data-status]').getAttribute('data-status')).to.equal('idle')
    expect(await row('archive').locator('td[data-label="Last result"]').textContent()).to.equal('no run yet')
    expect(await row('small').locator('td[data-label="Sources / storages"]').textContent()).to.equal('1 / 1')
    await saveScreenshot(page, 'ui-dashboard')
  })

  journey('runs a job with immediate feedback and shows its live log lines, ANSI colours rendered', async ({ page }) => {
    const before = (await listBackups(page.request, 'small')).length
    await page.goto('/')
    await page.locator('a', { hasText: /^small$/ }).click()
    await page.locator('.stream-state.live').waitFor()
    const feedbackShown = await recordFeedback(page)
    await page.getByRole('button', { name: 'Run now' }).click()
    await feedbackShown('Run started at ')
    // This run's snapshot appears (newest first), and its commit line arrives over the SSE stream while
    // the page stays open.
    await page.locator('tr[data-snapshot]').nth(before).waitFor({ timeout: 30_000 })
    const name = (await page.locator('tr[data-snapshot]').first().getAttribute('data-snapshot'))!
    await page.locator('.log-line', { hasText: `committed ${name}` }).waitFor({ timeout: 30_000 })
    expect(await page.locator('.log-line span.ansi-fg-2', { hasText: 'INFO' }).count()).to.be.greaterThan(0)
    await page.locator('[data-status="idle"]').first().waitFor({ timeout: 30_000 })
    await page.locator('.result.ok').waitFor()
    await saveScreenshot(page, 'ui-job')
  })

  journey('downloads a snapshot whose bytes equal the file in the storage', async ({ page }) => {
    await ensureBackup(page.request, 'small')
    await page.goto('/jobs/small')
    await page.locator('tr[data-snapshot]').first().waitFor()
    const name = (await page.locator('tr[data-snapshot]').first().getAttribute('data-snapshot'))!
    const size = await page.locator('tr[data-snapshot] td[data-label="Size"]').first().textContent()
    expect(size).to.match(/KiB$/)
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a.download').first().click()])
    const saved = join(dir, 'downloaded.bin')
    await download.saveAs(saved)
    const stored = findFile(join(dir, 'store-small'), name)
    expect(stored, `no ${name} in the storage`).to.be.a('string')
    expect(readFileSync(saved).equals(readFileSync(stored!))).to.equal(true)
  })

  journey('shows a split snapshot with its part count and downloads the whole set', async ({ page }) => {
    expect((await page.request.post('/api/v1/jobs/parted/run')).status()).to.equal(202)
    await page.goto('/jobs/parted')
    const row = page.locator('tr[data-snapshot]').first()
    await row.waitFor({ timeout: 30_000 })
    const parts = Number((await row.locator('td[data-label="Split"]').textContent())?.match(/^(\d+) parts$/)?.[1])
    expect(parts).to.be.greaterThan(1)
    const name = (await row.getAttribute('data-snapshot'))!
    const [download] = await Promise.all([page.waitForEvent('download'), row.locator('a.download').click()])
    const saved = join(dir, 'downloaded-split.bin')
    await download.saveAs(saved)
    expect(readFileSync(saved).equals(readSplitSet(join(dir, 'store-parted'), name))).to.equal(true)
  })

  journey('shows the job config when showConfig is on', async ({ page }) => {
    await page.goto('/jobs/small')
    await page.locator('details.config summary').click()
    const config = await page.locator('.config-json').textContent()
    expect(config).to.contain('"name": "small"')
    expect(config).to.contain('src-small')
  })

  journey('refreshes the dashboard by itself, with a live indicator while a run is in flight', async ({ page }) => {
    await page.goto('/')
    const huge = page.locator('tr[data-job="huge"]')
    await huge.locator('[data-status="idle"]').waitFor()
    expect((await page.request.post('/api/v1/jobs/huge/run')).status()).to.equal(202)
    await huge.locator('[data-status="running"] .live-dot').waitFor({ timeout: 15_000 })
    await saveScreenshot(page, 'ui-dashboard-running')
    expect((await page.request.post('/api/v1/jobs/huge/cancel')).status()).to.equal(200)
    await huge.locator('[data-status="idle"]').waitFor({ timeout: 15_000 })
    expect(await huge.locator('.result.failed').textContent()).to.contain('cancelled')
  })

  journey('shows a 409 as a clear message, then cancels a run', async ({ page }) => {
    // The page's timers run on a clock the test can pause, so its 5 s status poll cannot notice the
    // run started below before the click (network and rendering are not affected).
    await page.clock.install()
    await page.goto('/jobs/huge')
    await page.locator('[data-status="idle"]').waitFor()
    await page.locator('.stream-state.live').waitFor()
    await page.clock.pauseAt(Date.now() + 1000)
    // Started elsewhere (another operator): this page still offers Run now, and the daemon says 409.
    const started = await page.request.post('/api/v1/jobs/huge/run')
    expect(started.status()).to.equal(202)
    await page.getByRole('button', { name: 'Run now' }).click()
    await page.locator('#action-feedback.error', { hasText: 'already running' }).waitFor()
    // The refusal made the page read the status again: it shows the run.
    await page.locator('[data-status="running"] .live-dot').waitFor()
    await page.clock.resume()
    await saveScreenshot(page, 'ui-job-running')
    const feedbackShown = await recordFeedback(page)
    await page.getByRole('button', { name: 'Cancel run' }).click()
    await feedbackShown('Cancel requested at ')
    await page.locator('[data-status="idle"]').waitFor({ timeout: 30_000 })
    await page.locator('.result.failed').waitFor()
    expect(await page.locator('tr[data-snapshot]').count()).to.equal(0)
    await saveScreenshot(page, 'ui-job-cancelled')
  })

  journey('shows the system log live, with search and follow', async ({ context, page }) => {
    await page.goto('/')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'System' }).click()
    await page.waitForURL(/\/system$/)
    await page.locator('.log-line', { hasText: 'listening on' }).waitFor()
    // A shorter tail reconnects and still shows the newest lines.
    await page.getByLabel('Lines').selectOption('100')
    await page.locator('.stream-state.live').waitFor()
    await page.locator('.log-line', { hasText: 'listening on' }).waitFor()
    await page.getByRole('searchbox').fill('listening on')
    await page.locator('.match-count', { hasText: /^1 \/ 1$/ }).waitFor()
    expect(await page.getByRole('button', { name: 'Follow' }).getAttribute('aria-pressed')).to.equal('false')
    await page.locator('.log-line.current', { hasText: 'listening on' }).waitFor()
    await saveScreenshot(page, 'ui-system-log')
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await page.getByRole('button', { name: 'Copy' }).click()
    await page.getByText(/^Copied \d+ lines$/).waitFor()
    const copied = await page.evaluate(() => navigator.clipboard.readText())
    expect(copied).to.match(/INFO +listening on http:\/\/127\.0\.0\.1:\d+/)
    expect(copied).not.to.contain('\u001b')
  })

  journey('sends an expired session back to the login page with a message, and back to the page after login', async ({ context, page }) => {
    await ensureBackup(page.request, 'small')
    await page.goto('/jobs/small')
    await page.locator('tr[data-snapshot]').first().waitFor()
    // What an expired session looks like to the daemon: the cookie no longer verifies.
    const cookie = (await context.cookies()).find((c) => c.name === 'backup_session')
    expect(cookie, 'the session cookie').to.not.equal(undefined)
    await context.addCookies([{ ...cookie!, value: `${cookie!.value.slice(0, -4)}AAAA` }])
    await page.getByRole('button', { name: 'Refresh' }).click()
    await page.waitForURL(/\/login\?next=%2Fjobs%2Fsmall&reason=expired/)
    await page.locator('.alert.info', { hasText: 'Your session has expired' }).waitFor()
    await saveScreenshot(page, 'ui-session-expired')
    await logInWithKeyboard(page)
    await page.waitForURL(/\/jobs\/small$/)
    await page.locator('tr[data-snapshot]').first().waitFor()
  })

  journey('can be used with the keyboard alone', async ({ page }) => {
    await page.goto('/')
    await page.locator('tr[data-job="small"]').waitFor()
    /** Presses Tab until the focused element's text is `text` (at most 40 times). */
    const tabTo = async (text: string) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab')
        if ((await page.evaluate(() => document.activeElement?.textContent?.trim())) === text) return
      }
      throw new Error(`could not reach "${text}" with Tab`)
    }
    await tabTo('small')
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/jobs\/small$/)
    // Focus moved to the new page's content: the next Tab stops go into the page, not the header.
    await page.waitForFunction(() => document.activeElement?.id === 'main')
    await tabTo('Run now')
    const feedbackShown = await recordFeedback(page)
    await page.keyboard.press('Enter')
    await feedbackShown('Run started at ')
    await page.locator('[data-status="idle"]').first().waitFor({ timeout: 30_000 })
  })

  journey('logs out', async ({ page }) => {
    await page.goto('/')
    await page.getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL(/\/login$/)
    expect((await page.request.get('/api/v1/jobs')).status()).to.equal(401)
    await logInWithKeyboard(page)
    await page.waitForURL((url) => url.pathname === '/')
  })

  journey('works at phone width and in the dark theme', async ({ page }) => {
    // The job page below shows the log of a run.
    await ensureBackup(page.request, 'small')
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto('/')
    await page.locator('tr[data-job="small"]').waitFor()
    // Tables become cards: no horizontal scrolling of the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390)
    await page.getByRole('button', { name: /^Theme:/ }).click()
    await page.getByRole('button', { name: /^Theme:/ }).click()
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).to.equal('dark')
    await saveScreenshot(page, 'ui-dashboard-phone-dark')
    await page.goto('/jobs/small')
    await page.locator('.log-line').first().waitFor()
    await saveScreenshot(page, 'ui-job-phone-dark')
  })
})
