/**
 * An operator's first backup, verify and restore, from the daemon's web UI of the dev-app started as the
 * README says (`DEV_APP_ALLOW_RESTORE=1 npm start`), in headless Chromium (issue 24, "Tests that act like
 * people": run, verify and restore from the UI of the dev-app). Log in with the credentials the start
 * printed, open the `cms` job, press Run now and watch the run progress and end on screen, see the new
 * snapshot listed, press Verify and see its result, then Restore it: a folder outside the restore root is
 * refused on screen (the refusal goes once the folder is fixed), one inside it is restored, the result is
 * shown in the dialog and in the run history without a reload, and the files are really on disk (the CMS's
 * SQLite database and its media). Screenshots: test-artifacts/screenshots/journey-operator-*.png.
 */
import { expect } from 'chai'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'

import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startDevApp, type RunningDevApp } from './support/devApp.js'
import { sha256, walk } from './support/files.js'
import { freePort } from './support/freePort.js'

/** What the start printed for the operator: the daemon's login and the folder restores may go to. */
interface PrintedForOperator {
  username: string
  password: string
  restoreRoot: string
}

function parseStartOutput(output: string): PrintedForOperator {
  const login = /Backup daemon\s+\S+.*\n\s+login (\S+) \/ (\S+)/.exec(output)
  const root = /verify and restore on \(DEV_APP_ALLOW_RESTORE\), restoring into (\S+) only/.exec(output)
  if (!login) throw new Error(`the start did not print the daemon's login:\n${output.slice(-2000)}`)
  if (!root) throw new Error(`the start did not say where restores go:\n${output.slice(-2000)}`)
  return { username: login[1]!, password: login[2]!, restoreRoot: root[1]! }
}

describe('journey: an operator runs, verifies and restores a backup from the daemon UI (dev-app, npm start)', function () {
  // The first start builds the admin panel: minutes on a loaded two-core machine.
  this.timeout(30 * 60_000)
  let app: RunningDevApp
  let browser: Browser | undefined
  let page: Page
  let printed: PrintedForOperator
  let snapshot: string

  before(async function () {
    browser = await launchBrowser()
    app = await startDevApp({
      ports: { cms: await freePort(), daemon: await freePort(), emulator: await freePort() },
      readyTimeoutMs: 25 * 60_000,
      env: { DEV_APP_ALLOW_RESTORE: '1' },
    })
    printed = parseStartOutput(app.output())
    page = await browser.newPage({ viewport: { height: 1000, width: 1400 } })
  })

  after(async function () {
    await browser?.close()
    if (app) {
      await app.stop()
      rmSync(app.dataDir, { force: true, recursive: true })
    }
  })

  const snapshotNames = () => page.locator('tr[data-snapshot]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-snapshot')!))
  const history = () => page.locator('section[aria-labelledby="history-title"]')

  it('logs in with the printed credentials and opens the cms job', async function () {
    expect(printed.restoreRoot).to.equal(path.join(app.dataDir, 'restore'))
    await page.goto(`${app.daemonUrl}/`)
    await page.waitForURL(/\/login/)
    await page.fill('input[name=username]', printed.username)
    await page.fill('input[name=password]', printed.password)
    await saveScreenshot(page, 'journey-operator-1-login')
    await page.keyboard.press('Enter')
    await page.locator('tr[data-job="cms"]').waitFor({ timeout: 60_000 })
    await saveScreenshot(page, 'journey-operator-2-dashboard')
    await page.locator('a', { hasText: /^cms$/ }).click()
    await page.waitForURL(/\/jobs\/cms$/)
    await page.getByRole('heading', { name: 'cms', level: 1 }).waitFor()
    // The live stream of the job's runs is connected before the run is started.
    await page.locator('.stream-state.live').waitFor({ timeout: 60_000 })
    await page.getByRole('heading', { name: 'Snapshots' }).waitFor()
  })

  it('presses Run now, watches the run progress and end on screen, and sees the new snapshot listed', async function () {
    const before = await snapshotNames()
    // Record what the page shows during the run, however short it is: the feedback under the buttons and
    // each phase of the progress card. A string, not a function: tsx's compiled functions may call a helper (`__name`) the page does not have.
    await page.evaluate(`(() => {
      const seen = { feedback: [], phases: [] }
      window.seen = seen
      new MutationObserver(() => {
        const feedback = document.querySelector('#action-feedback')?.textContent ?? ''
        if (feedback && seen.feedback.at(-1) !== feedback) seen.feedback.push(feedback)
        const phase = document.querySelector('section[aria-label="Run progress"]')?.getAttribute('data-phase')
        if (phase && seen.phases.at(-1) !== phase) seen.phases.push(phase)
      }).observe(document.body, { attributes: true, characterData: true, childList: true, subtree: true })
    })()`)
    const seen = () => page.evaluate(() => (window as unknown as { seen: { feedback: string[]; phases: string[] } }).seen)
    await page.getByRole('button', { name: 'Run now' }).click()
    await page.waitForFunction(() => (window as unknown as { seen: { phases: string[] } }).seen.phases.length > 0, undefined, { timeout: 60_000 })
    await saveScreenshot(page, 'journey-operator-3-run-in-progress')

    // Its end: the run's last log line (the snapshot committed), Run now enabled again, "Run started at …" gone.
    await page
      .locator('.log-line', { hasText: /committed cms-/ })
      .first()
      .waitFor({ timeout: 5 * 60_000 })
    await page.getByRole('button', { name: 'Run now' }).and(page.locator(':not([disabled])')).waitFor({ timeout: 60_000 })
    await page.waitForFunction(() => document.querySelector('#action-feedback')?.textContent === '', undefined, { timeout: 30_000 })
    const { feedback, phases } = await seen()
    expect(feedback, 'what the page said under the buttons').to.have.length(1)
    expect(feedback[0]).to.match(/^Run started at \d/)
    expect(phases, 'the phases the progress card showed').to.not.be.empty
    expect(await page.locator('section[aria-label="Run progress"]').count(), 'no progress card once the run ended').to.equal(0)

    // The new snapshot is listed without a reload.
    await page.waitForFunction(
      (known) => [...document.querySelectorAll('tr[data-snapshot]')].some((row) => !known.includes(row.getAttribute('data-snapshot')!)),
      before,
      {
        timeout: 60_000,
      },
    )
    const added = (await snapshotNames()).filter((name) => !before.includes(name))
    expect(added).to.have.length(1)
    snapshot = added[0]!
    expect(snapshot).to.match(/^cms-/)
    await history().locator('tr[data-run][data-result="success"]', { hasText: 'backup' }).first().waitFor({ timeout: 30_000 })
    await saveScreenshot(page, 'journey-operator-4-run-ended')
  })

  it('presses Verify on the new snapshot and sees both copies intact', async function () {
    await page.getByRole('button', { name: `Verify ${snapshot}` }).click()
    const dialog = page.getByRole('dialog', { name: `Verify ${snapshot}` })
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Verify', exact: true }).click()
    await dialog.locator('[data-task-status="success"]').waitFor({ timeout: 5 * 60_000 })
    const result = dialog.locator('.task-result')
    expect(await result.isVisible()).to.equal(true)
    expect(await result.textContent()).to.equal('Done: 2 copies intact (disk, storage-host)')
    await saveScreenshot(page, 'journey-operator-5-verified')
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
    await history().locator('tr[data-run][data-result="success"]', { hasText: 'verify' }).first().waitFor({ timeout: 30_000 })
  })

  it('restores it: a folder outside the restore root is refused on screen until fixed, one inside is restored', async function () {
    await page.getByRole('button', { name: `Restore ${snapshot}` }).click()
    const dialog = page.getByRole('dialog', { name: `Restore ${snapshot}` })
    await dialog.waitFor()
    const folder = dialog.getByLabel(/^Folder/)
    const restoreButton = dialog.getByRole('button', { name: 'Restore', exact: true })

    const outside = path.join(app.dataDir, 'elsewhere')
    await folder.fill(outside)
    await restoreButton.click()
    const refusal = dialog.getByRole('alert')
    await refusal.waitFor({ timeout: 30_000 })
    expect(await refusal.isVisible()).to.equal(true)
    expect(await refusal.textContent()).to.include('outside the allowed restore roots')
    await saveScreenshot(page, 'journey-operator-6-restore-refused')
    expect(existsSync(outside), 'nothing written outside the root').to.equal(false)

    // The operator fixes the folder: the refusal, about the old one, goes before Restore is pressed again.
    const target = path.join(printed.restoreRoot, 'cms-copy')
    await folder.fill(target)
    await refusal.waitFor({ state: 'detached', timeout: 10_000 })
    expect(await dialog.getByTestId('restore-plan').textContent()).to.include(`will be written into ${target} on the daemon's host`)
    await saveScreenshot(page, 'journey-operator-7-restore-confirm')
    await restoreButton.click()
    await dialog.locator('[data-task-status="success"]').waitFor({ timeout: 5 * 60_000 })
    const result = dialog.locator('.task-result')
    expect(await result.isVisible()).to.equal(true)
    expect(await result.textContent())
      .to.match(/^Done: restored \d+ file\(s\)/)
      .and.include(`into ${target}`)
    await saveScreenshot(page, 'journey-operator-8-restored')
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })

    // No reload: the run history lists the restore, into its folder.
    const row = history().locator('tr[data-run][data-result="success"]', { hasText: 'restore' }).first()
    await row.waitFor({ timeout: 30_000 })
    expect(await row.locator('td[data-label="Snapshot"]').textContent()).to.equal(`${snapshot} → ${target}`)
    await saveScreenshot(page, 'journey-operator-9-history')

    // On disk: one folder per source. The CMS's media, byte for byte (the zone's private backups are not media)…
    const mediaRoot = path.join(app.dataDir, 'host', 'storage', 'dev-zone')
    const mediaFiles = walk(mediaRoot).filter((file) => !path.relative(mediaRoot, file).startsWith(`private-backups${path.sep}`))
    expect(
      mediaFiles.filter((file) => /\.(jpe?g|png|webp)$/i.test(file)),
      'the seeded images',
    ).to.not.be.empty
    for (const file of mediaFiles) {
      const copy = path.join(target, 'media', path.relative(mediaRoot, file))
      expect(existsSync(copy), `restored: ${copy}`).to.equal(true)
      expect(sha256(readFileSync(copy))).to.equal(sha256(readFileSync(file)))
    }
    // …and its SQLite database, which opens and holds the posts and images the CMS serves.
    const dbFile = walk(path.join(target, 'database')).find((file) => /\.(db|sqlite)$/.test(file))
    expect(dbFile, 'the database file in the restored folder').to.be.a('string')
    const { createClient } = await import('@libsql/client')
    const db = createClient({ url: `file:${dbFile}` })
    try {
      const posts = await db.execute('select title from posts order by id')
      const live = (await (await fetch(`${app.cmsUrl}/api/posts?sort=id&limit=100`)).json()) as { docs: { title: string }[] }
      expect(live.docs, 'the seeded posts').to.not.be.empty
      expect(posts.rows.map((r) => r.title)).to.deep.equal(live.docs.map((d) => d.title))
      const images = await db.execute('select count(*) as n from images')
      const liveImages = (await (await fetch(`${app.cmsUrl}/api/images/count`)).json()) as { totalDocs: number }
      expect(Number(images.rows[0]!.n)).to.equal(liveImages.totalDocs)
    } finally {
      db.close()
    }
  })
})
