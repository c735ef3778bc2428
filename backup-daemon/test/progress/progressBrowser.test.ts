/**
 * The live progress bar and the run history in headless Chromium against a real daemon process. The
 * run is held in its database dump (a stand-in `mysqldump` copying a FIFO the test writes), so every
 * step the bar takes is decided by the test: no sleeps, no timing. Screenshots go to
 * test-artifacts/screenshots/progress-*.png.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { formatBytes } from '../../src/ui/lib/formatBytes.js'
import { launchBrowser, saveScreenshot } from '../ui/support/browser.js'
import { openJourney } from '../ui/support/uiJourney.js'
import { fakeDumpTool, login, openFifo, operator, startDaemon, slowJob, writeConfig, type Daemon } from './support/slowDumpDaemon.js'

const MiB = 1024 * 1024

describe('progress and history in Chromium against a real daemon', function () {
  this.timeout(120_000)
  let browser: Browser | undefined
  let daemon: Daemon | undefined
  let dir: string
  let fifo: string
  let page: Page
  let siteBytes = 0
  const errors: string[] = []

  before(async function () {
    browser = await launchBrowser()
    dir = mkdtempSync(join(tmpdir(), 'progress-browser-'))
    const tool = fakeDumpTool(dir)
    fifo = tool.fifo
    mkdirSync(join(dir, 'site'))
    writeFileSync(join(dir, 'site', 'index.html'), randomBytes(4000))
    writeFileSync(join(dir, 'site', 'photo.jpg'), randomBytes(MiB))
    siteBytes = 4000 + MiB
    for (const name of ['a', 'b']) mkdirSync(join(dir, `store-${name}`))
    const config = await writeConfig(dir, {
      jobs: [slowJob(dir)],
    })
    daemon = await startDaemon(config, tool.binDir)
    ;({ page } = await openJourney(browser, daemon, { loggedIn: false }))
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('response', (r) => {
      if (r.status() >= 500) errors.push(`${r.status()} ${new URL(r.url()).pathname}`)
    })
  })

  after(async () => {
    await browser?.close()
    if (daemon) expect(await daemon.stop(), daemon.output()).to.equal(0)
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** The job page's main bar's aria-valuenow once it equals `percent`. */
  const waitForPercent = (target: Page, percent: number) =>
    target.waitForFunction(
      (p) => document.querySelector('[role=progressbar][aria-label="Reading the sources"]')?.getAttribute('aria-valuenow') === String(p),
      percent,
    )
  const percentOf = (read: number, total: number) => Math.min(99, Math.floor((read / total) * 1000) / 10)

  /** The job's run history through the API, newest first. */
  const history = async (cookie: string) =>
    ((await (await fetch(`${daemon!.url}/api/v1/jobs/slow/history`, { headers: { cookie } })).json()) as { runs: Record<string, unknown>[] }).runs

  /** Runs the job through the API with a dump of `dumpBytes`, and waits until the history lists that run. */
  const runThroughApi = async (dumpBytes: number): Promise<Record<string, unknown>> => {
    const cookie = await login(daemon!.url)
    const before = (await history(cookie)).length
    const res = await fetch(`${daemon!.url}/api/v1/jobs/slow/run`, { method: 'POST', headers: { cookie, origin: daemon!.url } })
    expect(res.status).to.equal(202)
    const writer = await openFifo(fifo)
    writer.end(randomBytes(dumpBytes))
    for (;;) {
      const runs = await history(cookie)
      if (runs.length > before) return runs[0]!
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  it('a first run (through the API) gives the next one its estimate', async () => {
    expect(await runThroughApi(4 * MiB)).to.include({ result: 'success', bytesRead: siteBytes + 4 * MiB })
  })

  it('moves the bar as the dump is read, on the job page and on the dashboard, then lists the run in the table and chart', async () => {
    // The estimate comes from one earlier run of 4 MiB: the test before made it, or (run alone) this one.
    if ((await history(await login(daemon!.url))).length === 0) await runThroughApi(4 * MiB)
    const total = siteBytes + 4 * MiB
    await page.goto('/jobs/slow')
    await page.waitForSelector('input[name=username]')
    await page.fill('input[name=username]', operator.username)
    await page.fill('input[name=password]', operator.password)
    await page.press('input[name=password]', 'Enter')
    await page.getByRole('heading', { name: 'slow', exact: true }).waitFor()
    // The first run is in the table already, without a chart (one point is no trend).
    await page.waitForSelector('table.history-table tbody tr')
    expect(await page.locator('.history-chart').count()).to.equal(0)

    await page.getByRole('button', { name: 'Run now' }).click()
    const writer = await openFifo(fifo)
    writer.write(randomBytes(MiB))
    const first = percentOf(siteBytes + MiB, total)
    await waitForPercent(page, first)
    const view = page.locator('section.run-progress')
    expect(await view.getAttribute('data-phase')).to.equal('dumping')
    expect(await view.locator('.progress-label').first().textContent()).to.include('db/app.sql')
    expect(await view.locator('[data-storage]').count()).to.equal(2)
    expect(await view.locator('.phase-steps li.current').textContent()).to.equal('Reading sources')
    await saveScreenshot(page, 'progress-job-running')

    // The dashboard's compact bar for the running job shows the same state.
    const dashboard = await page.context().newPage()
    await dashboard.goto('/')
    const compact = dashboard.locator('tr[data-job="slow"] .run-progress.compact [role=progressbar]')
    await compact.waitFor()
    expect(await compact.getAttribute('aria-valuenow')).to.equal(String(first))
    await saveScreenshot(dashboard, 'progress-dashboard')
    await dashboard.close()

    writer.write(randomBytes(MiB))
    const second = percentOf(siteBytes + 2 * MiB, total)
    expect(second).to.be.above(first)
    await waitForPercent(page, second)
    const width = await page.locator('[aria-label="Reading the sources"] .progress-fill').evaluate((el) => (el as HTMLElement).style.width)
    expect(width).to.equal(`${second}%`)
    await saveScreenshot(page, 'progress-job-moved')

    // A bigger dump this time: the chart's second bar is taller than the first.
    writer.end(randomBytes(6 * MiB))
    await page.locator('section.run-progress').waitFor({ state: 'detached' })
    await page.waitForFunction(() => document.querySelectorAll('table.history-table tbody tr').length === 2)
    const rows = page.locator('table.history-table tbody tr')
    expect(await rows.first().getAttribute('data-result')).to.equal('success')
    expect(await rows.first().locator('td[data-label="Trigger"]').textContent()).to.equal('manual')
    expect(await rows.first().locator('td[data-label="Read"]').textContent()).to.equal(`${formatBytes(siteBytes + 8 * MiB)} · 3 file(s)`)
    const bars = page.locator('.history-chart rect.chart-bar')
    expect(await bars.count()).to.equal(2)
    const heights = await bars.evaluateAll((els) => els.map((el) => Number(el.getAttribute('height'))))
    expect(heights[1]).to.be.above(heights[0]!)
    expect(await page.locator('.history-chart circle.chart-dot').count()).to.equal(2)
    expect(await page.locator('.history-chart svg').getAttribute('aria-label')).to.match(/^Backup size and duration over time\. 2 backups/)
    // Two runs minutes apart: the axis reads date and time, then the time (with its date only across midnight),
    // not the same date twice (issue 38).
    const from = (await page.locator('.history-chart [data-axis="from"]').textContent())!
    const to = (await page.locator('.history-chart [data-axis="to"]').textContent())!
    expect(from).to.match(/\d{4}, \d\d:\d\d/)
    expect(to).to.match(/(^|\d{4}, )\d\d:\d\d/)
    expect(to).not.to.equal(from)
    await page.locator('.history-chart').scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'progress-history')
    expect(errors).to.deep.equal([])
  })
})
