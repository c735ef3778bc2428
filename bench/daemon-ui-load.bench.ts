/**
 * @module bench/daemon-ui-load
 * First load of the web UI in headless Chromium (fresh browser context, empty cache: index.html,
 * script, stylesheet, then settings, auth check and the job list, until the dashboard shows its jobs)
 * against loading an empty HTML page from a bare Node HTTP server on the same machine, measured in the
 * same run, rounds interleaved. Also prints a warm reload (cached hashed assets) against the same baseline.
 *
 * Run: `npm run bench -- daemon-ui-load`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { printResult } from './support/measure.js'

interface Daemon {
  url: string
  stop(): Promise<void>
}
// Loaded by URL so the bench project does not typecheck the daemon's sources (they have their own project).
const { startDaemon } = (await import(new URL('../backup-daemon/test/ui/support/realDaemon.ts', import.meta.url).href)) as {
  startDaemon(options: object): Promise<Daemon>
}

const ROUNDS = 9
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const dir = mkdtempSync(join(tmpdir(), 'bench-ui-load-'))
mkdirSync(join(dir, 'src'))
writeFileSync(join(dir, 'src', 'a.txt'), 'a')
const jobs = Array.from({ length: 10 }, (_, i) => ({
  name: `job-${i}`,
  schedule: `${i} 2 * * *`,
  sources: [{ type: 'local', name: 'files', path: join(dir, 'src') }],
  storages: [{ type: 'local', name: 'disk', path: join(dir, `store-${i}`) }],
}))
const daemon = await startDaemon({ dir, auth: false, jobs })

const empty = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
  res.end('<!doctype html><html><head><title>empty</title></head><body></body></html>')
})
await new Promise<void>((resolve) => empty.listen(0, '127.0.0.1', resolve))
const emptyUrl = `http://127.0.0.1:${(empty.address() as AddressInfo).port}/`

let browser: Browser | undefined
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
  const ui: number[] = []
  const warm: number[] = []
  const base: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    {
      const context = await browser.newContext()
      const page = await context.newPage()
      const t0 = performance.now()
      await page.goto(emptyUrl, { waitUntil: 'load' })
      base.push(performance.now() - t0)
      await context.close()
    }
    {
      const context = await browser.newContext()
      const page = await context.newPage()
      const t0 = performance.now()
      await page.goto(daemon.url, { waitUntil: 'commit' })
      await page.locator('tr[data-job="job-9"]').waitFor()
      ui.push(performance.now() - t0)
      const t1 = performance.now()
      await page.reload({ waitUntil: 'commit' })
      await page.locator('tr[data-job="job-9"]').waitFor()
      warm.push(performance.now() - t1)
      await context.close()
    }
  }
  const [u, w, b] = [median(ui), median(warm), median(base)]
  console.log(`UI first load until the jobs show: median ${u.toFixed(0)} ms (${ui.map((x) => x.toFixed(0)).join(', ')})`)
  console.log(`UI reload with cached assets: median ${w.toFixed(0)} ms`)
  console.log(`empty page load: median ${b.toFixed(0)} ms (${base.map((x) => x.toFixed(0)).join(', ')})`)
  printResult('daemon-ui-load first load vs empty page', u / b, 'time to a usable dashboard, cold cache', '<= 5x')
  printResult('daemon-ui-load warm reload vs empty page', w / b, 'time to a usable dashboard, cached assets')
} finally {
  await browser?.close()
  empty.close()
  await daemon.stop()
  rmSync(dir, { recursive: true, force: true })
}
