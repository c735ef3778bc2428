/**
 * One storage down hides nothing else (issue 38), in Chromium against a real daemon: job `site` keeps its
 * snapshots on a local folder and on a real sshd; with the sshd stopped, the job page's Snapshots section
 * names the SFTP storage with why and since when, still lists the local copy and downloads it, and
 * `GET /jobs/site/backups` answers 200 with `storagesDown`. With both up, a snapshot names both storages.
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { startSshServer, type SshServer } from '../support/sshServer.js'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { runOnce, startDaemon, type RunningDaemon } from './support/realDaemon.js'
import { openJourney, type Journey } from './support/uiJourney.js'

describe('web UI: a job with one storage down (real daemon, real sshd stopped, Chromium)', function () {
  this.timeout(90_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let server: SshServer | undefined
  let journey: Journey
  let dir: string

  before(async function () {
    browser = await launchBrowser()
    server = await startSshServer()
    dir = mkdtempSync(join(tmpdir(), 'ui-storage-down-'))
    mkdirSync(join(dir, 'site'))
    writeFileSync(join(dir, 'site', 'index.html'), '<h1>still here</h1>\n')
    const config = {
      dataDir: join(dir, 'data'),
      server: { address: '127.0.0.1:0', secret: 'ui-storage-down-secret-0123456789', permissions: { allowBackupDownload: true }, ui: { enabled: true } },
      logs: { directory: join(dir, 'data', 'logs') },
      jobs: [
        {
          name: 'site',
          compression: 'tar.gz',
          sources: [{ type: 'local', name: 'files', path: join(dir, 'site') }],
          storages: [
            { type: 'local', name: 'disk', path: join(dir, 'storage') },
            {
              type: 'sftp',
              name: 'nas',
              host: server.host,
              port: server.port,
              username: server.username,
              privateKey: server.clientKey,
              knownHosts: server.knownHosts,
              path: join(server.root, 'backups'),
            },
          ],
        },
      ],
    }
    const file = join(dir, 'backup-daemon.yaml')
    writeFileSync(file, JSON.stringify(config, null, 2))
    expect(await runOnce(file, 'site')).to.equal(0)
    daemon = await startDaemon({ dir, jobs: [] }, file)
    journey = await openJourney(browser, daemon, { loggedIn: false })
  })

  after(async () => {
    await browser?.close()
    await daemon?.stop()
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('lists both storages of a snapshot while both answer, then names the stopped one and still lists and downloads the other', async () => {
    const { page } = journey
    await page.goto('/jobs/site')
    const section = page.locator('section[aria-labelledby="snapshots-title"]')
    const row = section.locator('tr[data-snapshot]')
    await row.waitFor()
    expect(await row.locator('td[data-label="Storage"]').textContent()).to.equal('disk (local), nas')

    // The server and its open sessions (a stopped listener alone leaves the daemon's connection served).
    const exited = new Promise((resolve) => server!.process.once('exit', resolve))
    server!.signal('SIGKILL')
    await exited
    await section.getByRole('button', { name: 'Refresh' }).click()
    const down = section.getByTestId('storages-down')
    await down.waitFor({ timeout: 30_000 })
    const text = (await down.textContent())!
    expect(text)
      .to.include('A storage did not answer')
      .and.match(/nas: listing failed: cannot connect to 127\.0\.0\.1:\d+: nothing accepts connections there \(ECONNREFUSED\)/)
      .and.include('down since')
    expect(await section.locator('tr[data-snapshot]').count()).to.equal(1)
    expect(await row.locator('td[data-label="Storage"]').textContent()).to.equal('disk (local)')
    await saveScreenshot(page, 'daemon-storage-down')

    const [download] = await Promise.all([page.waitForEvent('download'), row.locator('a.download').click()])
    const saved = join(dir, 'downloaded.tar.gz')
    await download.saveAs(saved)
    const name = readdirSync(join(dir, 'storage', 'site')).find((n) => n.endsWith('.tar.gz'))!
    expect(readFileSync(saved).equals(readFileSync(join(dir, 'storage', 'site', name)))).to.equal(true)

    const answer = await page.request.get('/api/v1/jobs/site/backups')
    expect(answer.status()).to.equal(200)
    const body = (await answer.json()) as { backups: { name: string }[]; storagesDown: { storage: string; error: string }[] }
    expect(body.backups.map((b) => b.name)).to.deep.equal([name])
    expect(body.storagesDown.map((d) => d.storage)).to.deep.equal(['nas'])
    expect(journey.pageErrors).to.deep.equal([])
  })
})
