/**
 * Browser test of a locked-down daemon (a second config): auth off, every permission off and the
 * system log switched off. The UI must not offer what the daemon would refuse.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { runOnce, startDaemon, writeDaemonConfig, type RunningDaemon } from './support/realDaemon.js'
import { makeJobs } from './support/uiFixture.js'
import { openJourney } from './support/uiJourney.js'

describe('web UI with permissions off (real daemon, auth off)', function () {
  this.timeout(60_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let page: Page
  let dir: string

  before(async function () {
    browser = await launchBrowser()
    dir = mkdtempSync(join(tmpdir(), 'ui-perm-'))
    const options = {
      dir,
      jobs: makeJobs(dir).filter((j) => j.name !== 'huge'),
      auth: false,
      permissions: { allowManualRun: false, allowBackupDownload: false, showConfig: false },
      logs: { system: false },
    }
    const file = await writeDaemonConfig(options)
    // A snapshot to (not) offer for download, made by `backup-daemon run` (manual runs are off in the API).
    expect(await runOnce(file, 'small')).to.equal(0)
    daemon = await startDaemon(options, file)
    ;({ page } = await openJourney(browser, daemon, { loggedIn: false }))
  })

  after(async () => {
    await browser?.close()
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('opens the dashboard without a login page and without a log-out button', async () => {
    await page.goto('/')
    await page.locator('tr[data-job="small"]').waitFor()
    expect(page.url()).not.to.contain('/login')
    expect(await page.getByRole('button', { name: 'Log out' }).count()).to.equal(0)
    // logs.system is off: the System page (status, uptime) is still linked, but it offers no log viewer (below).
    expect(await page.getByRole('link', { name: 'System', exact: true }).count()).to.equal(1)
  })

  it('hides run, cancel, downloads and the config on the job page', async () => {
    // Its own navigation: the test does not rely on the page the test before left open.
    await page.goto('/')
    await page.locator('a', { hasText: /^small$/ }).click()
    await page.locator('[data-status="idle"]').waitFor()
    await page.locator('.stream-state.live').waitFor()
    expect(await page.getByRole('button', { name: 'Run now' }).count()).to.equal(0)
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).to.equal(0)
    expect(await page.locator('details.config').count()).to.equal(0)
    await page.locator('tr[data-snapshot]').first().waitFor()
    expect(await page.getByRole('columnheader', { name: 'Download' }).count()).to.equal(0)
    expect(await page.locator('a.download').count()).to.equal(0)
    await saveScreenshot(page, 'ui-permissions-job')
    // The daemon agrees: what is hidden is refused.
    expect((await page.request.post('/api/v1/jobs/small/run')).status()).to.equal(403)
    expect(await (await page.request.get('/api/v1/jobs/small/config')).json()).to.deep.equal({ job: 'small', config: { name: 'small', schedule: '0 3 * * *' } })
  })

  it('says the system log is off instead of showing an empty viewer', async () => {
    await page.goto('/system')
    await page.locator('.alert.info', { hasText: 'logs.system' }).waitFor()
    // The daemon's status is shown all the same (auth is off: no session needed for the details).
    await page.locator('[data-fact="status"]', { hasText: 'ok' }).waitFor()
    expect(await page.locator('.log-box').count()).to.equal(0)
  })
})
