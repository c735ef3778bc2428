/**
 * Browser test of verify and restore from the backups list (real daemon with `allowRestore` on and a
 * restore root, Chromium): the dialog says what will be written where, refuses a folder outside the
 * roots with the daemon's words, and reports the verify's and the restore's results; the restored
 * files are compared with the source on disk.
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startWebRestoringDaemon, type RunningDaemon } from './support/realDaemon.js'
import { openJourney } from './support/uiJourney.js'

describe('web UI: verify and restore a snapshot (real daemon, Chromium)', function () {
  this.timeout(90_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let page: Page
  let dir: string
  let root: string

  before(async function () {
    browser = await launchBrowser()
    dir = mkdtempSync(join(tmpdir(), 'ui-restore-'))
    ;({ daemon, root } = await startWebRestoringDaemon(dir, 'ui-restore-secret-0123456789abcdef', (site) => {
      mkdirSync(join(site, 'docs'))
      writeFileSync(join(site, 'index.html'), '<h1>restored page</h1>\n')
      writeFileSync(join(site, 'docs', 'readme.txt'), 'read me\n')
    }))
    ;({ page } = await openJourney(browser, daemon, { loggedIn: false }))
  })

  after(async () => {
    await browser?.close()
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('verifies the snapshot from its row and shows the result', async () => {
    await page.goto('/jobs/web')
    const row = page.locator('tr[data-snapshot]').first()
    await row.waitFor()
    const name = (await row.getAttribute('data-snapshot'))!
    await page.getByRole('button', { name: `Verify ${name}` }).click()
    const dialog = page.getByRole('dialog', { name: `Verify ${name}` })
    await dialog.waitFor()
    expect(await dialog.textContent()).to.include('Nothing is written')
    await dialog.getByRole('button', { name: 'Verify', exact: true }).click()
    await dialog.locator('[data-task-status="success"]').waitFor()
    expect(await dialog.locator('.task-result').textContent()).to.include('1 copy intact (disk)')
    await saveScreenshot(page, 'daemon-verify-result')
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
  })

  it('restores into a folder after confirmation: refuses one outside the roots, then writes the files', async () => {
    // Its own navigation: the test does not rely on the page the test before left open.
    await page.goto('/jobs/web')
    await page.locator('tr[data-snapshot]').first().waitFor()
    const name = (await page.locator('tr[data-snapshot]').first().getAttribute('data-snapshot'))!
    await page.getByRole('button', { name: `Restore ${name}` }).click()
    const dialog = page.getByRole('dialog', { name: `Restore ${name}` })
    await dialog.waitFor()
    const restoreButton = dialog.getByRole('button', { name: 'Restore', exact: true })
    expect(await restoreButton.isDisabled(), 'nothing to confirm before a folder is named').to.equal(true)
    // Where it may go is said before a guess (issue 38): the roots, an example inside the first; no library upload
    // for a job without a video source; a database restore for a job without a database source says so.
    await dialog.getByTestId('restore-roots').waitFor()
    expect(await dialog.getByTestId('restore-roots').textContent()).to.equal(`Allowed: inside ${root}`)
    expect(await dialog.getByLabel(/^Folder/).getAttribute('placeholder')).to.equal(`${root}/web`)
    expect(await dialog.getByLabel("Then upload the job's videos back into their library").count()).to.equal(0)
    await dialog.getByLabel('a database').check()
    expect(await dialog.getByTestId('restore-databases').textContent()).to.equal('This job has no database source.')
    await dialog.getByLabel("a folder on the daemon's host").check()

    await dialog.getByLabel(/^Folder/).fill(join(dir, 'elsewhere'))
    await restoreButton.click()
    await dialog.getByRole('alert').waitFor()
    expect(await dialog.getByRole('alert').textContent()).to.include('outside the allowed restore roots')

    const target = join(root, 'web-copy')
    await dialog.getByLabel(/^Folder/).fill(target)
    const plan = await dialog.getByTestId('restore-plan').textContent()
    expect(plan).to.include(`will be written into ${target} on the daemon's host`).and.include('nothing is restored')
    await saveScreenshot(page, 'daemon-restore-confirm')
    await restoreButton.click()
    await dialog.locator('[data-task-status="success"]').waitFor()
    expect(await dialog.locator('.task-result').textContent())
      .to.include(`restored 2 file(s)`)
      .and.include(target)
    await saveScreenshot(page, 'daemon-restore-result')
    expect(readFileSync(join(target, 'site', 'index.html'), 'utf8')).to.equal('<h1>restored page</h1>\n')
    expect(readFileSync(join(target, 'site', 'docs', 'readme.txt'), 'utf8')).to.equal('read me\n')
    // The job's log shows the task's lines.
    await dialog.getByRole('button', { name: 'Close' }).click()
    await page.locator('.log-viewer, [aria-label="Log of web"]').first().getByText('[restore] succeeded', { exact: false }).first().waitFor()
  })
})
