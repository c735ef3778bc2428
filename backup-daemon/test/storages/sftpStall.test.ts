/**
 * An SFTP server that stops answering or dies mid-call never hangs a run, a cancel or a read (issue 38):
 * a real sshd SIGSTOPped mid-upload (its TCP connections stay open, nothing answers) fails the run
 * within the storage's `timeout`, naming the storage; a cancel meanwhile ends within its bound;
 * the SSH keepalive declares a silent server dead with no request waiting; a request on a connection
 * whose server session was killed fails at once (ssh2 alone queues it where nothing reads it).
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { loadConfig } from '../../src/config/loadConfig.js'
import { createEngine, type DaemonEngine } from '../../src/engine/createEngine.js'
import { sftpStorage } from '../../src/storages/sftp/index.js'
import { startSshServer, type SshServer } from '../support/sshServer.js'
import { sleep, tempDir, waitFor } from '../engine/helpers.js'

describe('storages/sftp: a server that stops answering mid-upload (real sshd, SIGSTOP)', function () {
  this.timeout(60_000)
  let server: SshServer
  let dir: string
  let remove: () => Promise<void>
  let engine: DaemonEngine

  before(async () => {
    server = await startSshServer()
    ;({ dir, remove } = await tempDir('bd-sftp-stall-'))
    await mkdir(join(dir, 'src'))
    // Enough that the upload is still going when the server is stopped (read and sent in 64 KiB steps).
    for (let i = 0; i < 24; i++) await writeFile(join(dir, 'src', `f${i}`), randomBytes(1024 * 1024))
    const sftp = (name: string, timeout: number) =>
      JSON.stringify({
        type: 'sftp',
        name,
        host: server.host,
        port: server.port,
        username: server.username,
        privateKey: server.clientKey,
        knownHosts: server.knownHosts,
        path: join(server.root, name),
        timeout,
      })
    const job = (name: string, timeout: number) => `  - name: ${name}
    compression: tar
    sources: [{ type: local, name: files, path: ./src }]
    storages:
      - { type: local, name: disk, path: ./backups-${name} }
      - ${sftp('nas', timeout)}
`
    await writeFile(join(dir, 'backup-daemon.yaml'), `dataDir: ./data\njobs:\n${job('stall', 2)}${job('hold', 9)}`)
    engine = await createEngine(await loadConfig(join(dir, 'backup-daemon.yaml')), { schedule: false, persistLogs: false })
  })
  after(async () => {
    await engine?.stop()
    await server?.stop()
    await remove?.()
  })
  afterEach(() => server.signal('SIGCONT'))

  /** Starts a run of `job` and stops the server once the sftp storage got a few MiB of it. */
  async function stopMidUpload(job: string): Promise<number> {
    engine.run(job, 'manual')
    await waitFor(() => (engine.progress(job)?.storages.find((s) => s.storage === 'nas')?.bytesWritten ?? 0) > 2 * 1024 * 1024, 30_000, 'the upload')
    server.signal('SIGSTOP')
    return Date.now()
  }

  it('fails the run within the timeout (2 s) plus the clean-up bound, naming the storage; nothing is committed', async () => {
    const stopped = await stopMidUpload('stall')
    const info = await engine.whenIdle('stall')
    const took = Date.now() - stopped
    expect(info.status).to.equal('failed')
    expect(info.error).to.match(/^storage "nas" \(sftp\) failed: no answer from 127\.0\.0\.1:\d+ for 2 s/)
    // 2 s without an answer, then at most a third of it trying to remove the temporary file.
    expect(took).to.be.below(5000)
    expect(engine.history.list('stall')[0]).to.include({ kind: 'backup', result: 'failed' })
    server.signal('SIGCONT')
    expect(await readdir(join(dir, 'backups-stall', 'stall')).catch(() => [])).to.deep.equal([])
    expect(await engine.listSnapshots('stall')).to.deep.equal([])
  })

  it('a cancel while the server is stopped ends within its bound (a third of the timeout, here 3 s), long before the 9 s timeout', async () => {
    await stopMidUpload('hold')
    await sleep(300)
    const cancelled = Date.now()
    engine.cancel('hold')
    const info = await engine.whenIdle('hold')
    const took = Date.now() - cancelled
    expect(info.status).to.equal('cancelled')
    expect(took).to.be.below(5000)
    expect(engine.history.list('hold')[0]).to.include({ kind: 'backup', result: 'cancelled' })
  })

  it('the SSH keepalive declares a silent server dead while no request waits: the next write fails at once, saying so', async () => {
    // timeout 2 s: keepalives every 0.5 s, dead after 2 s.
    const storage = sftpStorage.create(
      sftpStorage.configSchema.parse({
        type: 'sftp',
        name: 'ka',
        host: server.host,
        port: server.port,
        username: server.username,
        privateKey: server.clientKey,
        knownHosts: server.knownHosts,
        path: join(server.root, 'ka'),
        timeout: 2,
      }),
    )
    const body = new Readable({ read() {} })
    body.push(Buffer.alloc(64 * 1024, 1))
    const written = storage.write('job', body, new AbortController().signal).then(
      () => undefined,
      (err: Error) => err,
    )
    // The first write answered (on the server's disk), nothing waits: only the keepalive can tell the server went silent.
    const folder = join(server.root, 'ka', 'job')
    await waitFor(
      async () => (await readdir(folder).catch(() => [])).length > 0 && (await stat(join(folder, (await readdir(folder))[0]!))).size === 64 * 1024,
      20_000,
      'the first write',
    )
    await sleep(100)
    server.signal('SIGSTOP')
    await sleep(2500)
    const pushed = Date.now()
    body.push(Buffer.alloc(64 * 1024, 2))
    const error = await written
    expect(error?.message).to.match(/^no answer from 127\.0\.0\.1:\d+ for 2 s$/)
    // The write failed at once (the connection was known dead), then the temporary file's removal tried
    // a new connection for at most its bound (0.7 s). Had the write waited for an answer, 2 s more.
    expect(Date.now() - pushed).to.be.below(1800)
  })

  it('a request on a connection whose server session was killed fails at once; the next call reconnects', async () => {
    const storage = sftpStorage.create(
      sftpStorage.configSchema.parse({
        type: 'sftp',
        name: 'gone',
        host: server.host,
        port: server.port,
        username: server.username,
        privateKey: server.clientKey,
        knownHosts: server.knownHosts,
        path: join(server.root, 'gone'),
      }),
    )
    await (await storage.write('job', Readable.from([Buffer.alloc(1024 * 1024, 7)]), new AbortController().signal)).commit('job/a.bin')
    // Opened, not read yet: no read request is in flight when the session dies.
    const stream = await storage.open('job/a.bin')
    server.signal('SIGKILL', { sessionsOnly: true })
    await sleep(300)
    const started = Date.now()
    const error = await (async () => {
      for await (const _ of stream);
    })().then(
      () => undefined,
      (err: Error) => err,
    )
    expect(error?.message).to.match(/^the SSH connection to 127\.0\.0\.1:\d+ was lost$/)
    expect(Date.now() - started).to.be.below(1000)
    expect((await storage.list('job/')).map((o) => o.key)).to.deep.equal(['job/a.bin'])
  })
})
