/**
 * Browser tests of the web UI for users coming from snapr (the original service), in headless Chromium:
 *
 * 1. Against a real daemon started from a config file written as a snapr user has it: the whole round
 *    of the UI (login, jobs list with a never-run job not shown as failed, job page, run now, live log,
 *    backups, download of a plain snapshot, of a split set whole and of one part, stop a run, config,
 *    system page with status/version/uptime/jobs, log out).
 * 2. Against the daemon's HTTP app over the API tests' engine double: the shapes the real engine only
 *    sometimes shows (a cancel in progress, snapshots without a checksum manifest or damaged).
 *
 * Screenshots go to test-artifacts/screenshots/snapr-*.png.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startServer, type RunningServer } from '../../src/server/startServer.js'
import { FakeEngine, fakeJob } from '../api/support/fakeEngine.js'
import { testConfig } from '../api/support/testConfig.js'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startDaemon, uiPassword, uiUser, type RunningDaemon } from './support/realDaemon.js'
import { findFile, logInWithKeyboard, readSplitSet } from './support/uiFixture.js'
import { ensureBackup, listBackups } from './support/uiApi.js'
import { journeys, recordFeedback } from './support/uiJourney.js'

/** Folders and the webhook receiver a config refers to. */
interface Paths {
  dir: string
  site: string
  docs: string
  huge: string
  store: string
  webhook: string
}

/**
 * The config as a snapr user writes it (`snapr.yaml`): sources without `name`, `excludes`, `logs.path`,
 * `server.logLimits`, `notifiers` with `onFailure`, `split.chunkSize: '1MB'`, `compression: gz`, a
 * `local` storage, no `dataDir`. This is what the test must run on once the daemon reads these keys.
 */
export const ORIGINAL_STYLE_CONFIG = (p: Paths): string => `
logs:
  path: ${p.dir}/logs
  system: true
  perJob: true
server:
  address: 127.0.0.1:0
  secret: snapr-style-test-secret-0123456789abcdef
  defaultLanguage: en
  auth:
    enabled: true
    username: ${uiUser}
    password: ${uiPassword}
    tokenExpiration: 30
  permissions:
    allowBackupDownload: true
    allowManualRun: true
    showConfig: true
  logLimits:
    jobLogs: 1000
    systemLogs: 1000
  ui:
    enabled: true
jobs:
  - name: site
    schedule: "0 3 * * *"
    compression: gz
    sources:
      - type: local
        path: ${p.site}
        excludes: ["*.tmp", "cache/"]
    storages:
      - name: disk
        type: local
        path: ${p.store}
    retention:
      last: 5
    split:
      chunkSize: 1MB
    notifiers:
      - name: ops-hook
        type: webhook
        url: ${p.webhook}
        onSuccess: false
        onFailure: true
  - name: docs
    schedule: "30 4 * * *"
    compression: gz
    sources:
      - type: local
        path: ${p.docs}
    storages:
      - name: disk
        type: local
        path: ${p.store}
    retention:
      last: 5
  - name: huge
    schedule: "0 5 * * 0"
    compression: gz
    sources:
      - type: local
        path: ${p.huge}
    storages:
      - name: disk
        type: local
        path: ${p.store}
    retention:
      last: 1
    notifiers:
      - name: ops-hook
        type: webhook
        url: ${p.webhook}
        onSuccess: false
        onFailure: true
  - name: never
    schedule: "0 6 1 * *"
    compression: gz
    sources:
      - type: local
        path: ${p.docs}
    storages:
      - name: disk
        type: local
        path: ${p.store}
    retention:
      last: 3
`

function makeSources(dir: string): Omit<Paths, 'webhook'> {
  const site = join(dir, 'src-site')
  mkdirSync(join(site, 'cache'), { recursive: true })
  mkdirSync(join(site, 'media'), { recursive: true })
  writeFileSync(join(site, 'hello.txt'), 'hello from a snapr-style job\n')
  // Random bytes do not compress: the gzip archive is > 2 MiB, so 1MB chunks make a set of 3 parts.
  writeFileSync(join(site, 'media', 'photo.bin'), randomBytes(2_300_000))
  writeFileSync(join(site, 'cache', 'skip-me.bin'), randomBytes(1000))
  writeFileSync(join(site, 'draft.tmp'), 'excluded\n')
  const docs = join(dir, 'src-docs')
  mkdirSync(docs, { recursive: true })
  writeFileSync(join(docs, 'readme.md'), '# docs\n')
  const huge = join(dir, 'src-huge')
  mkdirSync(huge, { recursive: true })
  // Sparse: no disk used, but gzip has 64 GiB of zeros to chew through, far longer than the test.
  const fd = openSync(join(huge, 'sparse.img'), 'w')
  ftruncateSync(fd, 64 * 1024 ** 3)
  closeSync(fd)
  return { dir, site, docs, huge, store: join(dir, 'store') }
}

/** The stored files of the newest part set of `name` under `root`, in part order. */
function partFiles(root: string, name: string): string[] {
  const folder = readdirSync(root, { recursive: true, withFileTypes: true }).find((e) => e.isDirectory() && e.name.startsWith(`${name}.parts-`))
  if (!folder) throw new Error(`no parts folder for ${name}`)
  const path = join(folder.parentPath, folder.name)
  return readdirSync(path)
    .sort()
    .map((file) => join(path, file))
}

describe('web UI for snapr users: a real daemon from an original-style config', function () {
  this.timeout(90_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let hooks: Server | undefined
  const hookBodies: string[] = []
  let dir: string
  let paths: Paths

  before(async function () {
    browser = await launchBrowser()
    dir = mkdtempSync(join(tmpdir(), 'ui-snapr-'))
    hooks = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        hookBodies.push(body)
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => hooks!.listen(0, '127.0.0.1', resolve))
    paths = { ...makeSources(dir), webhook: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks/backup-secret-path` }
    const file = join(dir, 'snapr.yaml')
    writeFileSync(file, ORIGINAL_STYLE_CONFIG(paths))
    daemon = await startDaemon({ dir, jobs: [] }, file)
  })

  after(async () => {
    if (daemon && daemon.process.exitCode !== null) console.log(`daemon output:\n${daemon.output()}`)
    await browser?.close()
    await daemon?.stop()
    await new Promise((resolve) => (hooks ? hooks.close(resolve) : resolve(undefined)))
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  // Each test has its own logged-in page and makes the snapshot it needs: none relies on another.
  const journey = journeys(() => ({ browser: browser!, daemon: daemon! }))

  const download = async (page: Page, click: () => Promise<void>, as: string): Promise<Buffer> => {
    const [file] = await Promise.all([page.waitForEvent('download'), click()])
    const saved = join(dir, as)
    await file.saveAs(saved)
    return readFileSync(saved)
  }

  journey(
    'logs in and lists the jobs; a job that never ran is not shown as failed',
    async ({ page }) => {
      await page.goto('/')
      await page.waitForURL(/\/login/)
      await logInWithKeyboard(page)
      await page.waitForURL((url) => url.pathname === '/')
      const row = (name: string) => page.locator(`tr[data-job="${name}"]`)
      await row('never').waitFor()
      expect(await page.locator('tr[data-job]').count()).to.equal(4)
      expect(await row('never').locator('[data-status]').getAttribute('data-status')).to.equal('idle')
      expect(await row('never').locator('td[data-label="Last result"]').textContent()).to.equal('no run yet')
      expect(await row('never').locator('.result.failed').count()).to.equal(0)
      expect(await row('never').locator('td[data-label="Last run"]').textContent()).to.equal('never')
      expect(await row('never').locator('td[data-label="Next run"] time').count()).to.equal(1)
      expect(await row('site').locator('.cron').textContent()).to.equal('0 3 * * *')
      // The API agrees: no lastResult at all rather than a failed one.
      const status = await (await page.request.get('/api/v1/jobs/never/status')).json()
      expect(status).to.include({ name: 'never', status: 'idle' })
      expect(status).not.to.have.property('lastResult')
      await saveScreenshot(page, 'snapr-dashboard')
    },
    { loggedIn: false },
  )

  journey('opens a job page, runs it now and shows its live log', async ({ page }) => {
    const before = (await listBackups(page.request, 'site')).length
    await page.goto('/')
    await page.locator('a', { hasText: /^site$/ }).click()
    await page.waitForURL(/\/jobs\/site$/)
    await page.getByRole('heading', { name: 'site', exact: true }).waitFor()
    await page.locator('.stream-state.live').waitFor()
    const feedbackShown = await recordFeedback(page)
    await page.getByRole('button', { name: 'Run now' }).click()
    await feedbackShown('Run started at ')
    // This run's snapshot (newest first) and its commit line, not an earlier run's.
    await page.locator('tr[data-snapshot]').nth(before).waitFor({ timeout: 45_000 })
    const name = (await page.locator('tr[data-snapshot]').first().getAttribute('data-snapshot'))!
    await page.locator('.log-line', { hasText: `committed ${name}` }).waitFor({ timeout: 45_000 })
    await page.locator('[data-status="idle"]').first().waitFor({ timeout: 30_000 })
    await page.locator('.result.ok').waitFor()
  })

  journey('lists the split snapshot and downloads the set whole and one part, byte for byte', async ({ page }) => {
    await ensureBackup(page.request, 'site')
    await page.goto('/jobs/site')
    const row = page.locator('tr[data-snapshot]').first()
    await row.waitFor({ timeout: 30_000 })
    const name = (await row.getAttribute('data-snapshot'))!
    expect(await row.getAttribute('data-id')).to.equal(name)
    expect(await row.locator('td[data-label="Split"]').textContent()).to.equal('3 parts')
    const stored = readSplitSet(paths.store, name)
    const whole = await download(page, () => row.locator('a.download').click(), 'site-whole.tar.gz')
    expect(whole.equals(stored)).to.equal(true)
    // The set is a gzip tar of the source minus the excludes.
    const listing = execFileSync('tar', ['-tzf', join(dir, 'site-whole.tar.gz')], { encoding: 'utf8' })
    expect(listing)
      .to.match(/hello\.txt/)
      .and.match(/photo\.bin/)
    expect(listing)
      .not.to.match(/cache\//)
      .and.not.match(/\.tmp$/m)
    await row.locator('details.parts summary').click()
    const partLinks = row.locator('a.download-part')
    expect(await partLinks.count()).to.equal(3)
    expect(await partLinks.nth(1).getAttribute('data-part')).to.equal(`${name}.part-aab`)
    const files = partFiles(paths.store, name)
    const second = await download(page, () => partLinks.nth(1).click(), 'site-part-aab')
    expect(second.equals(readFileSync(files[1]!))).to.equal(true)
    await saveScreenshot(page, 'snapr-job')
  })

  journey('downloads a plain snapshot by its id', async ({ page }) => {
    expect((await page.request.post('/api/v1/jobs/docs/run')).status()).to.equal(202)
    await page.goto('/jobs/docs')
    const row = page.locator('tr[data-snapshot]').first()
    await row.waitFor({ timeout: 30_000 })
    const id = (await row.getAttribute('data-id'))!
    expect(await row.locator('td[data-label="Split"]').textContent()).to.equal('no')
    const bytes = await download(page, () => row.locator('a.download').click(), 'docs.tar.gz')
    expect(bytes.equals(readFileSync(findFile(paths.store, id)!))).to.equal(true)
  })

  journey('stops a run: "stopping…" at once, then idle with the run failed as cancelled and the webhook told', async ({ page }) => {
    await page.goto('/jobs/huge')
    await page.locator('[data-status="idle"]').waitFor()
    await page.getByRole('button', { name: 'Run now' }).click()
    await page.locator('[data-status="running"] .live-dot').waitFor({ timeout: 15_000 })
    // Hold the status polls so the page shows what it knows right after the click.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route('**/api/v1/jobs/huge/status', async (route) => {
      await held
      await route.continue()
    })
    await page.getByRole('button', { name: 'Cancel run' }).click()
    await page.locator('#action-feedback', { hasText: 'Cancel requested' }).waitFor()
    await page.locator('[data-cancelling="true"]', { hasText: 'stopping…' }).waitFor()
    expect(await page.getByRole('button', { name: 'Stopping…' }).isDisabled()).to.equal(true)
    await saveScreenshot(page, 'snapr-job-stopping')
    release()
    await page.unroute('**/api/v1/jobs/huge/status')
    await page.locator('[data-status="idle"]').waitFor({ timeout: 30_000 })
    expect(await page.locator('.result.failed').textContent()).to.contain('cancelled')
    expect(await page.locator('tr[data-snapshot]').count()).to.equal(0)
    for (let i = 0; i < 300 && !hookBodies.some((b) => b.includes('huge')); i++) await new Promise((r) => setTimeout(r, 100))
    expect(
      hookBodies.some((b) => b.includes('huge')),
      'webhook for the stopped run',
    ).to.equal(true)
  })

  journey('shows the job config without secrets', async ({ page }) => {
    await page.goto('/jobs/site')
    await page.locator('details.config summary').click()
    const config = (await page.locator('.config-json').textContent())!
    expect(config).to.contain('"name": "site"')
    expect(config).not.to.contain('backup-secret-path').and.not.contain(uiPassword)
  })

  journey('shows the system page: status ok, version, uptime, jobs count and the live system log', async ({ page }) => {
    await page.goto('/')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'System' }).click()
    await page.waitForURL(/\/system$/)
    await page.locator('[data-fact="status"]', { hasText: 'ok' }).waitFor()
    expect(await page.locator('[data-fact="version"]').textContent()).to.match(/^\d+\.\d+\.\d+/)
    expect(await page.locator('[data-fact="uptime"]').textContent()).to.match(/^\d+[smhd]( \d+[smhd])?$/)
    expect(await page.locator('[data-fact="jobs"]').textContent()).to.match(/^4\b/)
    await page.locator('.log-line', { hasText: 'listening on' }).waitFor()
    await saveScreenshot(page, 'snapr-system')
  })

  journey('logs out', async ({ page }) => {
    await page.goto('/')
    await page.getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL(/\/login$/)
    expect((await page.request.get('/api/v1/jobs')).status()).to.equal(401)
    // The public status stays readable (the original web client reads it before login).
    expect(await (await page.request.get('/api/v1/status')).json()).to.include({ status: 'ok', jobsCount: 4 })
  })
})

describe('web UI for snapr users: cancel in progress and snapshot badges (engine double)', function () {
  this.timeout(60_000)
  let browser: Browser | undefined
  let server: RunningServer | undefined
  let page: Page

  before(async function () {
    browser = await launchBrowser()
    // The in-memory double: the page must show a run held in "cancelling" and badges of snapshots from other
    // origins, states a real engine passes through in milliseconds or does not write itself.
    const engine = new FakeEngine([
      fakeJob('nightly', { status: 'running', cancelling: true }),
      fakeJob('fresh', { lastResult: undefined, lastRun: undefined, nextRun: undefined }),
    ])
    const base = { jobName: 'nightly', path: '/b', createdAt: new Date(Date.now() - 3600e3).toISOString(), storageType: 'local', storage: 'disk' }
    engine.snapshots.set('nightly', [
      {
        view: {
          ...base,
          id: 'nightly-20260101-030000.tar.gz',
          name: 'nightly-20260101-030000.tar.gz',
          size: 5,
          isSplit: false,
          fullDownloadSupported: true,
          partsCount: 1,
          checksummed: false,
          damaged: false,
          storages: ['disk'],
        },
        bytes: Buffer.from('plain'),
      },
      {
        view: {
          ...base,
          id: 'nightly-set.tar.gz',
          name: 'nightly-set.tar.gz',
          size: 3,
          isSplit: true,
          fullDownloadSupported: true,
          partsCount: 3,
          checksummed: true,
          damaged: true,
          damageReason: 'part aac is missing',
          storages: ['disk', 'offsite'],
        },
        parts: [Buffer.from('a'), Buffer.from('b')],
      },
    ])
    const config = testConfig({ ui: true, auth: { enabled: false } })
    server = await startServer({ config, engine })
    page = await (await browser.newContext({ baseURL: server.url })).newPage()
  })

  after(async () => {
    await browser?.close()
    await server?.close()
  })

  it('shows a run being cancelled as "stopping…" with cancel disabled, and a never-run job as no run yet', async () => {
    await page.goto('/')
    const nightly = page.locator('tr[data-job="nightly"]')
    await nightly.locator('[data-cancelling="true"]', { hasText: 'stopping…' }).waitFor()
    expect(await page.locator('tr[data-job="fresh"] td[data-label="Last result"]').textContent()).to.equal('no run yet')
    await page.goto('/jobs/nightly')
    await page.locator('.page-head [data-cancelling="true"]', { hasText: 'stopping…' }).waitFor()
    expect(await page.getByRole('button', { name: 'Stopping…' }).isDisabled()).to.equal(true)
    expect(await page.getByRole('button', { name: 'Run now' }).isDisabled()).to.equal(true)
  })

  it('badges snapshots without a checksum manifest and damaged ones, and links each part by <id>.part-xxx', async () => {
    await page.goto('/jobs/nightly')
    const plain = page.locator('tr[data-id="nightly-20260101-030000.tar.gz"]')
    await plain.locator('.badge.unchecked', { hasText: 'not checksummed' }).waitFor()
    expect(await plain.locator('.badge.damaged').count()).to.equal(0)
    const set = page.locator('tr[data-id="nightly-set.tar.gz"]')
    expect(await set.locator('.badge.damaged').textContent()).to.equal('damaged: part aac is missing')
    expect(await set.locator('.badge.unchecked').count()).to.equal(0)
    // Every storage holding it is named in the cell (issue 38), the one downloaded from first.
    expect(await set.locator('td[data-label="Storage"]').textContent()).to.equal('disk (local), offsite')
    expect(await set.locator('td[data-label="Storage"]').getAttribute('title')).to.equal('downloaded from disk (local)')
    const hrefs = await set.locator('a.download-part').evaluateAll((links) => links.map((a) => a.getAttribute('href')))
    expect(hrefs).to.deep.equal(['aaa', 'aab', 'aac'].map((s) => `/api/v1/jobs/nightly/backups/nightly-set.tar.gz.part-${s}/download`))
    expect(await set.locator('a.download').getAttribute('href')).to.equal('/api/v1/jobs/nightly/backups/nightly-set.tar.gz/download')
    await saveScreenshot(page, 'snapr-badges')
  })
})
