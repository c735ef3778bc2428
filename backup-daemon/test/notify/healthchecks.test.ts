/**
 * @module test/notify/healthchecks
 * The `healthchecks` notifier through the real daemon process: a local HTTP server stands in for
 * healthchecks.io and records every ping. A good run pings `<url>/start` then `<url>`, a failed one
 * `<url>/start` then `<url>/fail` with the run's log lines as the body; a failing endpoint is a warning,
 * never a failed run; the ping URL (the check's secret) is in no response, log line or log file.
 */
import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { maxPingBody, pingBody } from '../../src/notify/healthchecksNotifier.js'
import { spawnDaemon, type DaemonProcess } from '../api/support/daemonProcess.js'

interface Ping {
  method: string
  path: string
  rid: string | null
  body: string
}

async function waitFor<T>(what: string, probe: () => T | undefined, output: () => string): Promise<T> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what} did not happen in 30 s:\n${output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('healthchecks notifier (real daemon, local ping server)', function () {
  this.timeout(60_000)
  const check = randomUUID()
  const broken = randomUUID()
  const pings: Ping[] = []
  let server: Server
  let dir: string
  let daemon: DaemonProcess
  let hcUrl: string

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost')
        pings.push({ method: req.method ?? '', path: url.pathname, rid: url.searchParams.get('rid'), body: Buffer.concat(chunks).toString() })
        res.statusCode = url.pathname.includes(broken) ? 500 : 200
        res.end('OK')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    hcUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`

    dir = mkdtempSync(join(tmpdir(), 'healthchecks-'))
    mkdirSync(join(dir, 'source'))
    writeFileSync(join(dir, 'source', 'a.txt'), 'some content\n')
    // A storage "folder" that is a file: the run fails while writing.
    writeFileSync(join(dir, 'not-a-folder'), '')
    const job = (name: string, storage: string, url: string) => ({
      name,
      sources: [{ type: 'local', name: 'files', path: join(dir, 'source') }],
      storages: [{ type: 'local', name: 'disk', path: storage }],
      notify: [{ type: 'healthchecks', name: 'hc', url }],
    })
    const config = {
      dataDir: join(dir, 'data'),
      server: { address: '127.0.0.1:0', secret: 'healthchecks-test-secret-0123456789abcdef', permissions: { allowManualRun: true, showConfig: true } },
      logs: { system: true, perJob: true, directory: join(dir, 'data', 'logs') },
      jobs: [
        job('good', join(dir, 'storage'), `${hcUrl}/ping/${check}`),
        job('bad', join(dir, 'not-a-folder', 'sub'), `${hcUrl}/ping/${check}/`),
        job('unreachable', join(dir, 'storage2'), `${hcUrl}/ping/${broken}`),
      ],
    }
    writeFileSync(join(dir, 'config.yaml'), stringify(config))
    daemon = await spawnDaemon(join(dir, 'config.yaml'))
  })

  after(async () => {
    await daemon?.stop()
    await new Promise((resolve) => server?.close(resolve))
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const runAndCollect = async (job: string, count: number): Promise<Ping[]> => {
    const from = pings.length
    const started = await fetch(`${daemon.url}/api/v1/jobs/${job}/run`, { method: 'POST' })
    expect(started.status, await started.text()).to.equal(202)
    return waitFor(`${count} pings for ${job}`, () => (pings.length >= from + count ? pings.slice(from) : undefined), daemon.output)
  }

  it('a good run: POST <url>/start, then POST <url> with the run log, one run id for both', async () => {
    const [start, end] = await runAndCollect('good', 2)
    expect(start).to.include({ method: 'POST', path: `/ping/${check}/start`, body: '' })
    expect(end).to.include({ method: 'POST', path: `/ping/${check}` })
    expect(start!.rid).to.match(/^[0-9a-f-]{36}$/)
    expect(end!.rid).to.equal(start!.rid)
    expect(end!.body).to.match(/run started \(manual\)/)
    expect(end!.body).to.match(/run succeeded in /)
    expect(end!.body).to.not.include('\u001b[')
    const status = (await (await fetch(`${daemon.url}/api/v1/jobs/good/status`)).json()) as { lastResult: { success: boolean } }
    expect(status.lastResult.success).to.equal(true)
  })

  it('a failed run: POST <url>/start, then POST <url>/fail with the log lines naming the error', async () => {
    const [start, end] = await runAndCollect('bad', 2)
    expect(start).to.include({ path: `/ping/${check}/start` })
    expect(end).to.include({ method: 'POST', path: `/ping/${check}/fail` })
    expect(end!.rid).to.equal(start!.rid)
    expect(end!.body).to.match(/run started \(manual\)/)
    expect(end!.body).to.match(/run failed after .*: .+/)
    const log = (await (await fetch(`${daemon.url}/api/v1/jobs/bad/logs?tail=50`)).json()) as { error: string }
    expect(log.error).to.not.equal('')
    expect(end!.body).to.include(log.error)
  })

  it('an endpoint answering 500 is a warning with the label, never a failed run', async () => {
    const [start, end] = await runAndCollect('unreachable', 2)
    expect(start!.path).to.equal(`/ping/${broken}/start`)
    expect(end!.path).to.equal(`/ping/${broken}`)
    let logs = ''
    for (let i = 0; i < 100 && !/failed: HTTP 500/.test(logs); i++) {
      logs = await (await fetch(`${daemon.url}/api/v1/jobs/unreachable/logs?tail=100`)).text()
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(logs).to.match(/notify\[0\] \\"hc\\" healthchecks 127\.0\.0\.1:\d+: failed: HTTP 500/)
    const status = (await (await fetch(`${daemon.url}/api/v1/jobs/unreachable/status`)).json()) as { lastResult: { success: boolean } }
    expect(status.lastResult.success).to.equal(true)
  })

  it('the ping URL is redacted in GET /jobs/{name}/config and appears in no log line or log file', async () => {
    const response = await fetch(`${daemon.url}/api/v1/jobs/good/config`)
    expect(response.status).to.equal(200)
    const text = await response.text()
    expect(text).to.not.include(check)
    const notifier = (JSON.parse(text) as { config: { notifiers: Record<string, unknown>[] } }).config.notifiers[0]
    expect(notifier).to.include({ type: 'healthchecks', name: 'hc', hasUrl: true, urlHost: new URL(hcUrl).host, onSuccess: true, onFailure: true })
    for (const job of ['good', 'bad', 'unreachable']) {
      const logs = await (await fetch(`${daemon.url}/api/v1/jobs/${job}/logs?tail=1000`)).text()
      expect(logs).to.include('healthchecks')
      expect(logs).to.not.include(check).and.to.not.include(broken)
    }
    expect(daemon.output()).to.not.include(check).and.to.not.include(broken)
    const files = readdirSync(join(dir, 'data', 'logs'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
    expect(files).to.not.be.empty
    for (const file of files) {
      const content = readFileSync(join(file.parentPath, file.name), 'utf8')
      expect(content, file.name).to.not.include(check).and.to.not.include(broken)
    }
  })

  it('caps the body at 100 kB, keeping the newest lines whole', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `2026-01-01T00:00:00Z INFO line ${i} ${'x'.repeat(40)}`)
    const body = pingBody(lines)
    expect(Buffer.byteLength(body)).to.be.at.most(maxPingBody)
    expect(Buffer.byteLength(body)).to.be.greaterThan(maxPingBody - 100)
    expect(body.endsWith(`${lines[4999]}\n`)).to.equal(true)
    expect(body.split('\n')[0]).to.match(/^2026-01-01T00:00:00Z INFO line \d+ x{40}$/)
  })
})
