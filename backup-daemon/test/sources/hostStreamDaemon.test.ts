/**
 * The `host-stream` source in a real daemon run: a job backs the emulator's library up and lists its
 * snapshot; the same library behind a proxy whose pull zone answers 503 for one video's original
 * (after the retries) fails the run with an error naming that video, and no snapshot is listed.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnDaemon, type DaemonProcess } from '../api/support/daemonProcess.js'
import { libraryClient, mp4Bytes, startStreamEmulator, type StreamEmulator } from './support/streamLibrary.js'

describe('sources/host-stream in a daemon run', function () {
  this.timeout(120_000)
  let dir: string
  let emulator: StreamEmulator
  let proxy: Server
  let daemon: DaemonProcess
  let failing: string
  let refused = 0

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bd-stream-daemon-'))
    emulator = await startStreamEmulator({ stream: { libraryId: 5150, apiKey: 'daemon-Lib-key-2' } })
    const library = libraryClient(emulator)
    await library.video('First', mp4Bytes(40_000))
    failing = await library.video('Broken on the CDN', mp4Bytes(40_000))
    await library.video('Third', mp4Bytes(40_000))
    const upstream = new URL(emulator.url)
    // Forwards everything to the emulator, except the failing video's original: 503 every time.
    proxy = createServer((req, res) => {
      if (req.url?.startsWith(`/stream-cdn/5150/${failing}/original`)) {
        refused++
        req.resume()
        res.writeHead(503).end('Service Unavailable')
        return
      }
      const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      forward.on('error', () => res.destroy())
      req.pipe(forward)
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    const job = (name: string, cdn: string) => ({
      name,
      sources: [
        {
          type: 'host-stream',
          name: 'videos',
          apiBase: emulator.stream.apiBase,
          libraryId: 5150,
          apiKey: 'env:STREAM_TEST_API_KEY',
          pullZoneHostname: `${cdn}/stream-cdn/5150`,
          pageSize: 2,
        },
      ],
      storages: [{ type: 'local', name: 'disk', path: join(dir, `storage-${name}`) }],
    })
    const config = {
      dataDir: join(dir, 'data'),
      server: { address: '127.0.0.1:0', secret: 'host-stream-test-secret-0123456789abcdef', permissions: { allowManualRun: true } },
      jobs: [job('good', emulator.url), job('bad', proxyUrl)],
    }
    writeFileSync(join(dir, 'config.yaml'), JSON.stringify(config, null, 2))
    process.env.STREAM_TEST_API_KEY = 'daemon-Lib-key-2'
    daemon = await spawnDaemon(join(dir, 'config.yaml'))
  })

  after(async () => {
    await daemon?.stop()
    delete process.env.STREAM_TEST_API_KEY
    await new Promise((resolve) => proxy?.close(resolve))
    await emulator?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const api = (path: string, init?: RequestInit) => fetch(`${daemon.url}/api/v1${path}`, init)

  async function runJob(job: string): Promise<{ status: string; error: string }> {
    const started = await api(`/jobs/${job}/run`, { method: 'POST' })
    expect(started.status, await started.text()).to.equal(202)
    for (let i = 0; i < 3000; i++) {
      const { status } = (await (await api(`/jobs/${job}/status`)).json()) as { status: string }
      if (status === 'idle') return (await (await api(`/jobs/${job}/logs?tail=0`)).json()) as { status: string; error: string }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`the run of ${job} did not end\n${daemon.output()}`)
  }

  const backups = async (job: string) => ((await (await api(`/jobs/${job}/backups`)).json()) as { backups: { name: string }[] }).backups

  it('backs the library up and lists the snapshot', async () => {
    const result = await runJob('good')
    expect(result.status, result.error).to.equal('success')
    expect(await backups('good')).to.have.length(1)
  })

  it('a pull zone answering 5xx for one video fails the run naming the video, after retries, and lists no snapshot', async () => {
    const result = await runJob('bad')
    expect(result.status).to.equal('failed')
    expect(result.error)
      .to.include(`video ${failing} ("Broken on the CDN")`)
      .and.match(/pull zone answered 503/)
    expect(result.error).to.not.include('daemon-Lib-key-2')
    expect(refused, 'retried before failing').to.be.greaterThan(1)
    expect(await backups('bad')).to.deep.equal([])
  })
})
