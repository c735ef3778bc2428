/**
 * An S3 or WebDAV server that stops answering mid-upload never hangs a run or a cancel (issue 38), as
 * `sftpStall.test.ts` shows for sftp: a real server in a child process (s3rver, `rclone serve webdav`)
 * SIGSTOPped mid-upload (its TCP connections stay open and the kernel still accepts new ones, nothing
 * answers) fails the run within the storage's `timeout` times its attempts plus the clean-up bound,
 * naming the storage, with nothing listed; a cancel meanwhile ends within the clean-up bound (a third of
 * `timeout`); once the server is woken, the next run succeeds.
 */
import { expect } from 'chai'
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/loadConfig.js'
import { createEngine, type DaemonEngine } from '../../src/engine/createEngine.js'
import { startWebdavServer } from '../support/webdavServer.js'
import { sleep, tempDir, waitFor } from '../engine/helpers.js'
import { startS3rverProcess } from './support/s3rver.js'

interface StalledServer {
  /** `http://127.0.0.1:PORT`, as the error names it. */
  origin: string
  process: ChildProcess
  /** The storage entry of a job (flow-style YAML). */
  storage(name: string, timeout: number): object
  stop(): Promise<void>
}

const servers: { type: 's3' | 'webdav'; attempts: number; start(): Promise<StalledServer> }[] = [
  {
    type: 's3',
    // The SDK makes 3 attempts of a part (backoff below 0.2 s).
    attempts: 3,
    start: async () => {
      const s3 = await startS3rverProcess()
      return {
        origin: s3.endpoint,
        process: s3.process,
        storage: (name, timeout) => ({
          type: 's3',
          name,
          bucket: s3.bucket,
          endpoint: s3.endpoint,
          usePathStyle: true,
          accessKeyId: 'S3RVER',
          secretAccessKey: 'S3RVER',
          path: name,
          timeout,
        }),
        stop: () => s3.close(),
      }
    },
  },
  {
    type: 'webdav',
    // A PUT's body is a one-shot stream: one attempt.
    attempts: 1,
    start: async () => {
      const dav = await startWebdavServer()
      return {
        origin: new URL(dav.url).origin,
        process: dav.process,
        storage: (name, timeout) => ({ type: 'webdav', name, url: dav.url, username: dav.username, password: dav.password, path: name, timeout }),
        stop: async () => {
          dav.process.kill('SIGCONT')
          await dav.stop()
        },
      }
    },
  },
]

for (const { type, attempts, start } of servers) {
  describe(`storages/${type}: a server that stops answering mid-upload (a real server in a child process, SIGSTOP)`, function () {
    this.timeout(60_000)
    let server: StalledServer
    let dir: string
    let remove: () => Promise<void>
    let engine: DaemonEngine

    before(async () => {
      server = await start()
      ;({ dir, remove } = await tempDir(`bd-${type}-stall-`))
      await mkdir(join(dir, 'src'))
      // Enough that the upload is still going when the server is stopped (more than the socket buffers and two S3 parts hold).
      for (let i = 0; i < 32; i++) await writeFile(join(dir, 'src', `f${i}`), randomBytes(1024 * 1024))
      const job = (name: string, timeout: number) => `  - name: ${name}
    compression: tar
    sources: [{ type: local, name: files, path: ./src }]
    storages:
      - { type: local, name: disk, path: ./backups-${name} }
      - ${JSON.stringify(server.storage('offsite', timeout))}
`
      await writeFile(join(dir, 'backup-daemon.yaml'), `dataDir: ./data\njobs:\n${job('stall', 2)}${job('hold', 9)}`)
      engine = await createEngine(await loadConfig(join(dir, 'backup-daemon.yaml')), { schedule: false, persistLogs: false })
    })
    after(async () => {
      await engine?.stop()
      await server?.stop()
      await remove?.()
    })
    afterEach(() => server.process.kill('SIGCONT'))

    const written = (job: string) => engine.progress(job)?.storages.find((s) => s.storage === 'offsite')?.bytesWritten

    /** Starts a run of `job` and stops the server once the remote storage got 10 MiB of it (an S3 part is 8 MiB). */
    async function stopMidUpload(job: string): Promise<void> {
      engine.run(job, 'manual')
      await waitFor(() => (written(job) ?? 0) > 10 * 1024 * 1024, 30_000, 'the upload')
      server.process.kill('SIGSTOP')
    }

    /**
     * The run's end, and how long before it the remote storage took its last byte: the silence starts
     * there, not at the stop (this machine's TCP buffers, up to 32 MiB for a receiver, keep taking bytes
     * from a stopped server's client for a while).
     */
    async function silenceUntilEnd(job: string) {
      let last: number | undefined
      let since = Date.now()
      const watch = setInterval(() => {
        const now = written(job)
        if (now !== undefined && now !== last) [last, since] = [now, Date.now()]
      }, 20)
      const info = await engine.whenIdle(job)
      clearInterval(watch)
      return { info, silent: Date.now() - since }
    }

    it(`fails the run within ${attempts} attempt(s) of the timeout (2 s, twice that at worst) plus the clean-up bound, naming the storage; nothing is listed`, async () => {
      await stopMidUpload('stall')
      const { info, silent } = await silenceUntilEnd('stall')
      expect(info.status).to.equal('failed')
      expect(info.error).to.equal(`storage "offsite" (${type}) failed: no answer from ${server.origin} for 2 s`)
      // Each attempt 2 s without a byte, up to twice that when the silence began in the middle of a write
      // (Node restarts a socket's idle timer once while the kernel still took part of it), then at most a
      // third of it removing the temporary object.
      if (process.env.STALL_TIMES) console.log(`${type}: failed ${silent} ms after the last byte`)
      expect(silent).to.be.within(2000, attempts * 4000 + 700 + 1000)
      expect(engine.history.list('stall')[0]).to.include({ kind: 'backup', result: 'failed' })
      server.process.kill('SIGCONT')
      expect(await engine.listSnapshots('stall')).to.deep.equal([])
    })

    it('a cancel while the server is stopped ends within its bound (a third of the timeout, here 3 s), long before the 9 s timeout', async () => {
      await stopMidUpload('hold')
      await sleep(300)
      const cancelled = Date.now()
      engine.cancel('hold')
      const info = await engine.whenIdle('hold')
      const took = Date.now() - cancelled
      if (process.env.STALL_TIMES) console.log(`${type}: cancelled in ${took} ms`)
      expect(info.status).to.equal('cancelled')
      // 3 s, and as much again for cores shared with other test processes: still well before the 9 s timeout.
      expect(took).to.be.below(6000)
      expect(engine.history.list('hold')[0]).to.include({ kind: 'backup', result: 'cancelled' })
    })

    it('once the server answers again, the next run succeeds and is the only snapshot listed', async () => {
      // The 9 s job: 2 s without a byte can happen to a healthy server on shared, loaded cores.
      engine.run('hold', 'manual')
      const info = await engine.whenIdle('hold')
      expect(info.status, info.error).to.equal('success')
      const snapshots = await engine.listSnapshots('hold')
      expect(snapshots).to.have.length(1)
      expect(snapshots[0]!.storages).to.deep.equal(['disk', 'offsite'])
    })
  })
}
