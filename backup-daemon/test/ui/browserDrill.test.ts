/**
 * Browser test of restore drills on the job page (real daemon with `allowRestore` on, Chromium): before
 * the first drill the page says so; "Drill now" runs one and the page then says "Restore proven …"; after a
 * byte of the stored snapshot is flipped, the next drill's failure is shown with what differed.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startWebRestoringDaemon, type RunningDaemon } from './support/realDaemon.js'
import { openJourney } from './support/uiJourney.js'

describe('web UI: restore drills on the job page (real daemon, Chromium)', function () {
  this.timeout(90_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let page: Page
  let dir: string

  before(async function () {
    browser = await launchBrowser()
    dir = mkdtempSync(join(tmpdir(), 'ui-drill-'))
    ;({ daemon } = await startWebRestoringDaemon(dir, 'ui-drill-secret-0123456789abcdef', (site) => {
      mkdirSync(join(site, 'docs'))
      writeFileSync(join(site, 'index.html'), '<h1>drilled page</h1>\n')
      writeFileSync(join(site, 'docs', 'readme.txt'), 'read me\n')
      // Enough that the drill is still going when the page first asks for it: its progress is shown.
      writeFileSync(join(site, 'docs', 'video.bin'), randomBytes(24 * 1024 * 1024))
    }))
    ;({ page } = await openJourney(browser, daemon, { loggedIn: false }))
  })

  after(async () => {
    await browser?.close()
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('"Drill now" proves the restore; a damaged snapshot shows the failure and what differed', async () => {
    await page.goto('/jobs/web')
    const status = page.getByTestId('drill-status')
    await status.getByText('No restore drill yet').waitFor()
    await status.getByRole('button', { name: 'Drill now' }).click()
    // Its progress from the first poll on, in a drill's own steps (nothing for 40 s before, issue 38).
    const progress = status.locator('.run-progress[data-kind="drill"]')
    await progress.waitFor()
    expect((await progress.locator('.phase-steps li').allTextContents()).map((step) => step.replace('✓ ', ''))).to.deep.equal([
      'Preparing',
      'Verifying',
      'Restoring and comparing',
      'Finishing',
    ])
    await status.locator('[data-drill="proven"]').waitFor()
    expect(await status.locator('[data-drill="proven"]').textContent()).to.match(/^Restore proven (just now|\d+ seconds ago)$/)
    await saveScreenshot(page, 'daemon-drill-proven')

    const folder = join(dir, 'storage', 'web')
    const name = readdirSync(folder).find((n) => n.endsWith('.tar.gz'))!
    const bytes = readFileSync(join(folder, name))
    bytes[300]! ^= 0x01
    writeFileSync(join(folder, name), bytes)
    await status.getByRole('button', { name: 'Drill now' }).click()
    await status.locator('[data-drill="failed"]').waitFor()
    const failed = await status.locator('[data-drill="failed"]').textContent()
    expect(failed).to.include('Drill failed: storage "disk"').and.include(`${name}: damaged, not restored`)
    await saveScreenshot(page, 'daemon-drill-failed')
  })
})
