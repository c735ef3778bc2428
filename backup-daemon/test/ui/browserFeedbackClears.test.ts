/**
 * @module test/ui/browserFeedbackClears
 * Issue 24 #16, in Chromium against a real daemon, doing what a person does on the job page: a refused
 * restore folder's message goes away once the folder is corrected (before pressing Restore again); the
 * restore shows up in the run history without a reload; "Run started at …" goes away when the run ended.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startWebRestoringDaemon, type RunningDaemon } from './support/realDaemon.js'
import { openJourney } from './support/uiJourney.js'

describe('web UI: messages that describe a past state go away (real daemon, Chromium)', function () {
  this.timeout(90_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let page: Page
  let dir: string
  let root: string

  before(async () => {
    browser = await launchBrowser()
    if (!browser) throw new Error('/usr/bin/chromium is not installed (apt-get install -y chromium)')
    dir = mkdtempSync(join(tmpdir(), 'ui-feedback-'))
    ;({ daemon, root } = await startWebRestoringDaemon(dir, 'ui-feedback-secret-0123456789abcdef', (site) => {
      writeFileSync(join(site, 'index.html'), '<h1>page</h1>\n')
    }))
    ;({ page } = await openJourney(browser, daemon, { loggedIn: false }))
  })

  after(async () => {
    await browser?.close()
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('a refusal goes once the folder is fixed, and the restore appears in the run history without a reload', async () => {
    await page.goto('/jobs/web')
    const history = page.locator('section[aria-labelledby="history-title"]')
    await history.locator('tr[data-run]').first().waitFor()
    expect(await history.locator('tr[data-run]').count()).to.equal(1) // the backup run
    const name = (await page.locator('tr[data-snapshot]').first().getAttribute('data-snapshot'))!
    await page.getByRole('button', { name: `Restore ${name}` }).click()
    const dialog = page.getByRole('dialog', { name: `Restore ${name}` })
    const folder = dialog.getByLabel(/^Folder/)
    await folder.fill(join(dir, 'elsewhere'))
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click()
    const alert = dialog.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).to.include('outside the allowed restore roots')

    // The person corrects the folder: the refusal, about the old folder, is gone before they press Restore.
    await folder.fill(join(root, 'copy'))
    await alert.waitFor({ state: 'detached' })
    await saveScreenshot(page, 'daemon-restore-refusal-cleared')

    await dialog.getByRole('button', { name: 'Restore', exact: true }).click()
    await dialog.locator('[data-task-status="success"]').waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
    // No reload: the run history lists the restore now.
    await history.locator('tr[data-run]', { hasText: 'restore' }).first().waitFor({ timeout: 10_000 })
    await saveScreenshot(page, 'daemon-history-shows-restore')
  })

  it('"Run started at …" goes away when the run has ended', async () => {
    // Its own navigation: the test does not rely on the page the test before left open.
    await page.goto('/jobs/web')
    await page.locator('.stream-state.live').waitFor()
    await page.getByRole('button', { name: 'Run now' }).click()
    const feedback = page.locator('#action-feedback')
    await page.waitForFunction(() => document.querySelector('#action-feedback')?.textContent?.startsWith('Run started at'), undefined, { timeout: 10_000 })
    await saveScreenshot(page, 'daemon-run-started')
    // The run ends (the Run now button is enabled again), and the message with it.
    await page.getByRole('button', { name: 'Run now' }).and(page.locator(':not([disabled])')).waitFor({ timeout: 30_000 })
    await page.waitForFunction(() => document.querySelector('#action-feedback')?.textContent === '', undefined, { timeout: 10_000 })
    expect(await feedback.textContent()).to.equal('')
    await saveScreenshot(page, 'daemon-run-ended-feedback-cleared')
  })
})
