/**
 * @module bench/daemon-ui-log
 * How long the web UI's log viewer takes to show a 50,000-line tail in headless Chromium (SSE replay,
 * batching, virtualised rendering, until the last line is on screen), against the raw JSON tail fetch
 * of the same 50,000 lines (`GET /api/v1/jobs/{name}/logs?tail=50000` + `JSON.parse`) in the same page,
 * on the same real daemon process. Also prints the frame time while scrolling through the 50,000
 * lines against a 60 Hz frame (16.7 ms).
 *
 * Run: `npm run bench -- daemon-ui-log`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { printResult } from './support/measure.js'

interface Daemon {
  url: string
  stop(): Promise<void>
}
// Loaded by URL so the bench project does not typecheck the daemon's sources (they have their own project).
const { startDaemon, writeDaemonConfig } = (await import(new URL('../backup-daemon/test/ui/support/realDaemon.ts', import.meta.url).href)) as {
  writeDaemonConfig(options: object): Promise<string>
  startDaemon(options: object, file?: string): Promise<Daemon>
}

const LINES = 50_000
const ROUNDS = 5
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const dir = mkdtempSync(join(tmpdir(), 'bench-ui-log-'))
mkdirSync(join(dir, 'src'))
writeFileSync(join(dir, 'src', 'a.txt'), 'a')
const options = {
  dir,
  auth: false,
  logLimits: { jobLogs: LINES },
  jobs: [
    {
      name: 'big',
      schedule: '',
      sources: [{ type: 'local', name: 'files', path: join(dir, 'src') }],
      storages: [{ type: 'local', name: 'disk', path: join(dir, 'store') }],
    },
  ],
}
const file = await writeDaemonConfig(options)
// The job log as the daemon keeps it (reloaded on start): timestamps and ANSI-coloured levels.
mkdirSync(join(dir, 'data', 'logs', 'jobs'), { recursive: true })
const levels = ['\u001b[32mINFO \u001b[0m', '\u001b[33mWARN \u001b[0m', '\u001b[31mERROR\u001b[0m']
const lines = Array.from(
  { length: LINES },
  (_, i) =>
    `2026-11-21T08:00:${String(i % 60).padStart(2, '0')}.000Z ${levels[i % 17 === 0 ? 2 : i % 5 === 0 ? 1 : 0]} archived files/photos/2026/img-${i}.jpg (${(i * 37) % 9000} KiB)`,
)
writeFileSync(join(dir, 'data', 'logs', 'jobs', 'big.log'), lines.join('\n') + '\n')

const daemon = await startDaemon(options, file)
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
})
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  await page.goto(`${daemon.url}/jobs/big`)
  await page.locator('.log-box[data-lines="1000"]').waitFor()

  const fetchMs: number[] = []
  const viewerMs: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    fetchMs.push(
      await page.evaluate(async (n) => {
        const t0 = performance.now()
        const body = (await (await fetch(`/api/v1/jobs/big/logs?tail=${n}`)).json()) as { logs: string[] }
        if (body.logs.length !== n) throw new Error(`got ${body.logs.length} lines`)
        return performance.now() - t0
      }, LINES),
    )
    viewerMs.push(
      await page.evaluate(async (n) => {
        const select = document.querySelector<HTMLSelectElement>('.log-toolbar select')!
        const t0 = performance.now()
        select.value = String(n)
        select.dispatchEvent(new Event('change', { bubbles: true }))
        // No named helpers in here: tsx would wrap them in a `__name` call the page does not have.
        while (!document.querySelector(`.log-line[data-index="${n - 1}"]`)) await new Promise((r) => requestAnimationFrame(r))
        return performance.now() - t0
      }, LINES),
    )
    // Back to the short tail for the next round.
    await page.selectOption('.log-toolbar select', '1000')
    await page.locator('.log-box[data-lines="1000"]').waitFor()
  }

  // Smoothness: scroll from top to bottom of the 50,000 lines in 100 steps, one per frame.
  await page.selectOption('.log-toolbar select', String(LINES))
  await page.locator(`.log-line[data-index="${LINES - 1}"]`).waitFor()
  const frameMs = await page.evaluate(async () => {
    const box = document.querySelector<HTMLElement>('.log-box')!
    const steps = 100
    const times: number[] = []
    let last = performance.now()
    for (let i = 0; i <= steps; i++) {
      box.scrollTop = (box.scrollHeight * i) / steps
      await new Promise((r) => requestAnimationFrame(r))
      const now = performance.now()
      times.push(now - last)
      last = now
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length * 0.95)]!
  })

  const viewer = median(viewerMs)
  const raw = median(fetchMs)
  console.log(`viewer shows ${LINES} lines: median ${viewer.toFixed(0)} ms (${viewerMs.map((x) => x.toFixed(0)).join(', ')})`)
  console.log(`raw JSON tail fetch + parse: median ${raw.toFixed(0)} ms (${fetchMs.map((x) => x.toFixed(0)).join(', ')})`)
  console.log(`scrolling 50,000 lines: p95 frame ${frameMs.toFixed(1)} ms`)
  printResult('daemon-ui-log viewer vs raw JSON tail', viewer / raw, 'time to show a 50,000-line tail', '<= 5x')
  printResult('daemon-ui-log scroll frame vs 60 Hz frame', frameMs / (1000 / 60), 'p95 frame time while scrolling 50,000 lines', '<= 1.5x')
} finally {
  await browser.close()
  await daemon.stop()
  rmSync(dir, { recursive: true, force: true })
}
