/**
 * Browser test of a restore followed on the task stream (real daemon, real PostgreSQL, Chromium): a
 * database restore started from the dialog is held inside pg_restore (a psql session keeps a lock on a
 * table it must drop), so the dialog is seen mid-run: its progress bar and phase come from
 * `GET /jobs/{name}/tasks/current/progress`, with no polling of `tasks/current`. Once the lock is let
 * go the restore ends and the dialog shows its result; the target database then equals the source.
 */
import { expect } from 'chai'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { requirePostgresBin, startPostgresCluster, type PostgresCluster } from '../sources/support/postgresCluster.js'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startRestoringDaemon, type RunningDaemon } from './support/realDaemon.js'

const rows = "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders"

describe('web UI: a restore followed on the task stream (real daemon, PostgreSQL, Chromium)', function () {
  this.timeout(180_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let pg: PostgresCluster | undefined
  let page: Page
  let dir: string

  before(async function () {
    browser = await launchBrowser()
    const bin = await requirePostgresBin()
    pg = await startPostgresCluster(bin)
    await pg.sql('postgres', 'CREATE DATABASE shop')
    await pg.sql('postgres', 'CREATE DATABASE staging')
    await pg.sql('shop', "CREATE TABLE orders (id int PRIMARY KEY, item text); INSERT INTO orders SELECT g, 'item ' || g FROM generate_series(1, 500) g")
    await pg.sql('staging', "CREATE TABLE orders (id int PRIMARY KEY, item text); INSERT INTO orders VALUES (1, 'staging only')")
    dir = mkdtempSync(join(tmpdir(), 'ui-task-stream-'))
    const connection = { host: pg.socketDir, port: pg.port, user: pg.superuser }
    daemon = await startRestoringDaemon(dir, {
      secret: 'ui-task-stream-secret-0123456789abcdef',
      restore: { roots: [], databases: { staging: { type: 'postgresql', database: 'staging', ...connection } } },
      job: { name: 'shop', sources: [{ type: 'postgresql', name: 'pg', database: 'shop', ...connection, pgDump: join(pg.bin, 'pg_dump') }] },
    })
    const context = await browser.newContext({ baseURL: daemon.url, viewport: { width: 1280, height: 900 } })
    page = await context.newPage()
  })

  after(async () => {
    await browser?.close()
    await daemon?.stop()
    await pg?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** A psql session holding `LOCK TABLE orders` in `staging` until `release()`. */
  async function holdOrders(): Promise<{ release(): Promise<void> }> {
    const psql: ChildProcessWithoutNullStreams = spawn(join(pg!.bin, 'psql'), ['-X', '-q', '-A', '-t', '-h', pg!.socketDir, '-p', String(pg!.port)], {
      env: { ...process.env, PGUSER: pg!.superuser, PGDATABASE: 'staging' },
    })
    let out = ''
    await new Promise<void>((resolve, reject) => {
      psql.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('locked')) resolve()
      })
      psql.on('exit', (code) => reject(new Error(`psql exited ${code}: ${out}`)))
      psql.stdin.write("BEGIN; LOCK TABLE orders IN ACCESS SHARE MODE; SELECT 'locked';\n")
    })
    const exited = new Promise<void>((resolve) => psql.on('exit', () => resolve()))
    return {
      release: async () => {
        psql.stdin.end('ROLLBACK;\n')
        await exited
      },
    }
  }

  it('shows the progress of a database restore from the stream while it is held, then its result', async () => {
    const requests: string[] = []
    page.on('request', (request) => requests.push(new URL(request.url()).pathname))
    await page.goto('/jobs/shop')
    const row = page.locator('tr[data-snapshot]').first()
    await row.waitFor()
    const name = (await row.getAttribute('data-snapshot'))!
    await page.getByRole('button', { name: `Restore ${name}` }).click()
    const dialog = page.getByRole('dialog', { name: `Restore ${name}` })
    await dialog.waitFor()
    await dialog.getByLabel('a database').check()
    // Choices, not free text (issue 38): the job's database source and the restore.databases of its kind, preselected.
    expect(await dialog.getByLabel('Database source of the job').inputValue()).to.equal('pg')
    expect(
      await dialog
        .getByLabel(/^Target database/)
        .locator('option')
        .allTextContents(),
    ).to.deep.equal(['staging'])
    await dialog.getByLabel(/^Target database/).selectOption('staging')
    await dialog.getByLabel('Drop and recreate objects that already exist').check()
    expect(await dialog.getByTestId('restore-plan').textContent()).to.include('restored into the database configured as "staging"')

    expect(await pg!.sql('staging', rows)).to.match(/^1\|/)
    // (While pg_restore waits for its lock, even a SELECT on orders would queue behind it: the data is read before and after.)
    const lock = await holdOrders()
    try {
      const polled = () => requests.filter((path) => path === '/api/v1/jobs/shop/tasks/current').length
      await dialog.getByRole('button', { name: 'Restore', exact: true }).click()
      // Held inside pg_restore: the snapshot is verified and being restored; the bar says so.
      const state = dialog.locator('.task-state[data-task-status="running"][data-progress-from="stream"]')
      await state.waitFor()
      const progress = dialog.locator('.run-progress[data-phase="restoring"]')
      await progress.waitFor()
      // A restore's own steps, not a backup's (Preparing, Reading sources, Committing, Retention before, issue 38).
      expect(await progress.locator('.phase-steps li').allTextContents()).to.deep.equal(['✓ Preparing', '✓ Verifying', 'Restoring', 'Finishing'])
      const bar = progress.getByRole('progressbar').first()
      const percent = Number(await bar.getAttribute('aria-valuenow'))
      // A restore reads the snapshot twice (verify, then restore): past the verify, below the end.
      expect(percent).to.be.at.least(50).and.below(100)
      expect(await bar.getAttribute('aria-valuetext')).to.match(/\d+% · .* of ~/)
      expect(await dialog.getByRole('button', { name: 'Cancel restore' }).isEnabled()).to.equal(true)
      await saveScreenshot(page, 'daemon-restore-stream-progress')
      expect(requests).to.include('/api/v1/jobs/shop/tasks/current/progress')
      expect(polled(), 'no polling while the stream feeds the dialog').to.equal(0)
    } finally {
      await lock.release()
    }
    await dialog.locator('[data-task-status="success"]').waitFor()
    expect(await dialog.locator('.task-result').textContent()).to.include('restored source "pg" into postgresql database staging')
    await saveScreenshot(page, 'daemon-restore-stream-result')
    expect(await pg!.sql('staging', rows)).to.equal(await pg!.sql('shop', rows))
    // The end frame closed the stream; the ended task was read once for its summary.
    expect(requests.filter((path) => path === '/api/v1/jobs/shop/tasks/current')).to.have.length(1)
  })
})
