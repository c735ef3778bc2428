import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { writeSnapshot } from '../../src/repository/archives/writeSnapshot.js'
import { listCatalog, removeLeftovers } from '../../src/repository/archives/catalog.js'
import { hostStorage } from '../../src/storages/host/index.js'
import { LocalStorage } from '../../src/storages/local.js'
import { isNetworkError } from '../../src/storages/remote/isNetworkError.js'
import { AttemptTimeoutError, retry } from '../../src/storages/remote/retry.js'
import { UpstreamStatusError } from '../../src/storages/remote/UpstreamStatusError.js'
import { withRetries } from '../../src/storages/remote/withRetries.js'
import { s3Storage } from '../../src/storages/s3/index.js'
import type { Storage } from '../../src/storages/types.js'
import { sftpStorage } from '../../src/storages/sftp/index.js'
import { webdavStorage } from '../../src/storages/webdav/index.js'
import { startSshServer, type SshServer } from '../support/sshServer.js'
import { startWebdavServer, type WebdavServer } from '../support/webdavServer.js'
import { startFaultProxy, type FaultProxy } from './support/faultProxy.js'
import { startHostEmulator, type Emulator } from './support/hostEmulator.js'
import { startS3rver, type RunningS3 } from './support/s3rver.js'
import { startTcpCutProxy, type TcpCutProxy } from './support/tcpCutProxy.js'

const never = () => new AbortController().signal
const transientHttp = (err: unknown) => err instanceof UpstreamStatusError && err.transient

describe('storages/remote/retry', () => {
  it('retries transient failures with backoff and returns the first success', async () => {
    let calls = 0
    const retried: number[] = []
    const value = await retry(
      async () => {
        if (++calls < 3) throw new UpstreamStatusError(503, 'busy')
        return 'ok'
      },
      { baseDelayMs: 1, isRetryable: transientHttp, onRetry: (_err, attempt) => retried.push(attempt) },
    )
    expect(value).to.equal('ok')
    expect(retried).to.deep.equal([1, 2])
  })

  it('does not retry permanent failures (4xx) and gives up after `retries`', async () => {
    let calls = 0
    const permanent = await retry(
      async () => {
        calls++
        throw new UpstreamStatusError(403, 'no')
      },
      { isRetryable: transientHttp },
    ).catch((e: unknown) => e)
    expect(calls).to.equal(1)
    expect((permanent as UpstreamStatusError).status).to.equal(403)
    calls = 0
    await retry(
      async () => {
        calls++
        throw Object.assign(new Error('reset'), { code: 'ECONNRESET' })
      },
      { retries: 2, baseDelayMs: 1, isRetryable: isNetworkError },
    ).catch(() => {})
    expect(calls).to.equal(3)
  })

  it('the storage decorator retries exactly what the backend calls retryable, parsing no error itself', async () => {
    let calls = 0
    const flaky = new Error('backend-specific hiccup')
    const storage = withRetries(
      {
        type: 'fake',
        name: 'fake',
        canStream: true,
        write: () => Promise.reject(new Error('unused')),
        open: () => Promise.reject(new Error('unused')),
        delete: async () => {},
        isNotExist: () => false,
        list: async () => {
          calls++
          if (calls <= 2) throw flaky
          if (calls === 3) throw new UpstreamStatusError(503, 'a 503 this backend calls permanent')
          return []
        },
        isRetryable: (err) => err === flaky,
      },
      { baseDelayMs: 1 },
    )
    expect(storage.isRetryable(flaky)).to.equal(true)
    const err = await storage.list('x/').catch((e: unknown) => e)
    expect(calls).to.equal(3)
    expect((err as UpstreamStatusError).status).to.equal(503)
    expect(await storage.list('x/')).to.deep.equal([])
  })

  it('times out an attempt that hangs, even when the call ignores its signal, and retries it', async () => {
    let calls = 0
    const value = await retry(
      async () => {
        if (++calls === 1) return new Promise<string>(() => {})
        return 'second'
      },
      { timeoutMs: 50, baseDelayMs: 1 },
    )
    expect(value).to.equal('second')
    const err = await retry(() => new Promise(() => {}), { timeoutMs: 20, retries: 0 }).catch((e: unknown) => e)
    expect(err).to.be.instanceOf(AttemptTimeoutError)
  })

  it('stops at once when the caller aborts', async () => {
    const controller = new AbortController()
    controller.abort(new Error('cancelled'))
    const err = (await retry(async () => 'never', { signal: controller.signal }).catch((e: unknown) => e)) as Error
    expect(err.message).to.equal('cancelled')
  })
})

/** Two snapshots through the engine's writer: the first succeeds, the second dies mid-upload on `faulty`. */
async function failMidUpload(
  faulty: Storage,
  proxy: FaultProxy,
  afterBytes: number,
): Promise<{ local: LocalStorage; error: unknown; cleanup(): Promise<void> }> {
  return failMidUploadWith(
    faulty,
    () => (proxy.mode = { kind: 'cutUploads', afterBytes }),
    () => (proxy.mode = { kind: 'pass' }),
  )
}

/** Two snapshots through the engine's writer: the first succeeds, `arm` makes the second die mid-upload on `faulty`. */
async function failMidUploadWith(
  faulty: Storage,
  arm: () => void,
  disarm: () => void,
): Promise<{ local: LocalStorage; error: unknown; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'bd-fault-'))
  const local = new LocalStorage('disk', dir)
  const archive = () => Readable.from([randomBytes(3 * 1024 * 1024)])
  const base = { storages: [local, faulty], job: 'nightly', compression: 'tar' as const, signal: never() }
  await writeSnapshot({ ...base, archive: archive(), name: 'nightly-2026-01-01T00-00-00-000Z.tar', createdAt: new Date('2026-01-01T00:00:00Z') })
  arm()
  const error = await writeSnapshot({
    ...base,
    archive: archive(),
    name: 'nightly-2026-01-02T00-00-00-000Z.tar',
    createdAt: new Date('2026-01-02T00:00:00Z'),
  }).then(
    () => undefined,
    (e: unknown) => e,
  )
  disarm()
  return { local, error, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

const firstSnapshotKeys = ['nightly/nightly-2026-01-01T00-00-00-000Z.tar', 'nightly/nightly-2026-01-01T00-00-00-000Z.tar.manifest.json']

/**
 * Only the first snapshot is listed, and nothing else is committed. A server may store the torn
 * upload's temporary object after the storage deleted it (the server notices the cut when it
 * chooses to; s3rver and rclone both do under load): such a leftover is only ever an `incomplete`
 * object, which the engine's sweep (`removeLeftovers`, run before every run) removes.
 */
async function expectOnlyFirstSnapshot(storage: Storage): Promise<void> {
  const objects = await storage.list('nightly/')
  expect(
    objects
      .filter((o) => !o.incomplete)
      .map((o) => o.key)
      .sort(),
  ).to.deep.equal(firstSnapshotKeys)
  const { snapshots } = await listCatalog(storage, 'nightly')
  expect(snapshots.map((s) => s.view.name)).to.deep.equal(['nightly-2026-01-01T00-00-00-000Z.tar'])
  await removeLeftovers(storage, 'nightly')
  expect((await storage.list('nightly/')).map((o) => o.key).sort()).to.deep.equal(firstSnapshotKeys)
  expect((await listCatalog(storage, 'nightly')).orphans).to.deep.equal([])
}

describe('remote storages under faults (a real proxy that fails requests)', function () {
  this.timeout(60_000)

  describe('host', () => {
    let emulator: Emulator
    let proxy: FaultProxy
    let storage: Storage
    beforeEach(async () => {
      emulator = await startHostEmulator({ storage: { zoneName: 'z', accessKey: 'k' } })
      proxy = await startFaultProxy(emulator.url)
      storage = hostStorage.create(
        hostStorage.configSchema.parse({ type: 'host', name: 'bunny', endpoint: `${proxy.url}/storage`, zoneName: 'z', accessKey: 'k' }),
      )
    })
    afterEach(async () => {
      await proxy.close()
      await emulator.close()
    })

    it('rides out 503s with retries', async () => {
      proxy.mode = { kind: 'unavailable', count: 2 }
      expect(await storage.list('nothing/')).to.deep.equal([])
      expect(proxy.seen.filter((line) => line.startsWith('GET'))).to.have.length(3)
    })

    it('a connection cut mid-upload fails the run and leaves the other storage and the older snapshot intact, nothing half-written listed', async () => {
      const { local, error, cleanup } = await failMidUpload(storage, proxy, 256 * 1024)
      try {
        expect(error).to.be.instanceOf(Error)
        await expectOnlyFirstSnapshot(storage)
        await expectOnlyFirstSnapshot(local)
      } finally {
        await cleanup()
      }
    })
  })

  describe('s3', () => {
    let s3: RunningS3
    let proxy: FaultProxy
    let storage: Storage
    beforeEach(async () => {
      s3 = await startS3rver()
      proxy = await startFaultProxy(s3.endpoint)
      storage = s3Storage.create(
        s3Storage.configSchema.parse({
          type: 's3',
          name: 's3',
          bucket: s3.bucket,
          endpoint: proxy.url,
          usePathStyle: true,
          accessKeyId: 'S3RVER',
          secretAccessKey: 'S3RVER',
        }),
      )
    })
    afterEach(async () => {
      await proxy.close()
      await s3.close()
    })

    it('a connection cut mid-upload fails the run and leaves the other storage and the older snapshot intact, nothing half-written listed', async () => {
      const { local, error, cleanup } = await failMidUpload(storage, proxy, 256 * 1024)
      try {
        expect(error).to.be.instanceOf(Error)
        await expectOnlyFirstSnapshot(storage)
        await expectOnlyFirstSnapshot(local)
      } finally {
        await cleanup()
      }
    })
  })

  describe('sftp', () => {
    let server: SshServer
    let proxy: TcpCutProxy
    let storage: Storage
    beforeEach(async () => {
      server = await startSshServer()
      proxy = await startTcpCutProxy(server.host, server.port)
      // The host key is checked under the proxy's address.
      const knownHosts = join(server.dir, 'known_hosts_proxy')
      await writeFile(knownHosts, (await readFile(server.knownHosts, 'utf8')).replace(`:${server.port} `, `:${proxy.port} `))
      storage = sftpStorage.create(
        sftpStorage.configSchema.parse({
          type: 'sftp',
          name: 'ssh',
          host: '127.0.0.1',
          port: proxy.port,
          username: server.username,
          privateKey: server.clientKey,
          knownHosts,
          path: join(server.root, 'b'),
        }),
      )
    })
    afterEach(async () => {
      await proxy.close()
      await server.stop()
    })

    it('a connection cut mid-upload fails the run naming the storage, leaves the other storage and the older snapshot intact, nothing half-written listed', async () => {
      const { local, error, cleanup } = await failMidUploadWith(
        storage,
        () => proxy.cutAfter(256 * 1024),
        () => proxy.cutAfter(undefined),
      )
      try {
        expect(proxy.cuts).to.equal(1)
        expect((error as Error).message).to.match(/^storage "ssh" \(sftp\) failed: the SSH connection to 127\.0\.0\.1:\d+ was lost/)
        await expectOnlyFirstSnapshot(storage)
        await expectOnlyFirstSnapshot(local)
      } finally {
        await cleanup()
      }
    })

    it('a connection cut mid-download fails the read (several requests in flight), never the process', async () => {
      await (await storage.write('job', Readable.from([Buffer.alloc(4 * 1024 * 1024, 3)]), never())).commit('job/read.bin')
      const unhandled: unknown[] = []
      const onUnhandled = (reason: unknown) => unhandled.push(reason)
      process.on('unhandledRejection', onUnhandled)
      try {
        const stream = await storage.open('job/read.bin')
        // The read requests are small: the cut comes a few of them in, with others still in flight.
        proxy.cutAfter(600)
        let read = 0
        const error = await (async () => {
          for await (const chunk of stream) read += (chunk as Buffer).length
        })().then(
          () => undefined,
          (err: Error) => err,
        )
        await new Promise((resolve) => setTimeout(resolve, 200))
        expect(error, `read ${read} bytes`).to.be.instanceOf(Error)
        expect(read).to.be.below(4 * 1024 * 1024)
        expect(unhandled.map(String)).to.deep.equal([])
      } finally {
        process.off('unhandledRejection', onUnhandled)
        proxy.cutAfter(undefined)
      }
    })

    it('reconnects after the server dropped the connection between calls (retried)', async () => {
      expect(await storage.list('x/')).to.deep.equal([])
      proxy.cutAfter(1)
      // The next call's first bytes kill the connection; the retry opens a new one.
      expect(await storage.list('x/')).to.deep.equal([])
      expect(proxy.cuts).to.equal(1)
    })
  })

  describe('webdav', () => {
    let server: WebdavServer
    let proxy: FaultProxy
    let storage: Storage
    beforeEach(async () => {
      server = await startWebdavServer()
      proxy = await startFaultProxy(server.url)
      storage = webdavStorage.create(
        webdavStorage.configSchema.parse({
          type: 'webdav',
          name: 'dav',
          url: `${proxy.url}/`,
          username: server.username,
          password: server.password,
          path: 'b',
        }),
      )
    })
    afterEach(async () => {
      await proxy.close()
      await server.stop()
    })

    it('rides out 503s with retries', async () => {
      proxy.mode = { kind: 'unavailable', count: 2 }
      expect(await storage.list('nothing/')).to.deep.equal([])
      expect(proxy.seen.filter((line) => line.startsWith('PROPFIND'))).to.have.length(3)
    })

    it('commits behind a reverse proxy (the server sees another host): a 502 to MOVE falls back to a path-only Destination, once', async () => {
      for (const name of ['a', 'b']) await (await storage.write('job', Readable.from([Buffer.from(name)]), never())).commit(`job/${name}`)
      expect(proxy.seen.filter((line) => line.startsWith('MOVE'))).to.have.length(3)
      expect((await storage.list('job/')).map((o) => o.key).sort()).to.deep.equal(['job/a', 'job/b'])
    })

    it('a connection cut mid-upload fails the run naming the storage, leaves the other storage and the older snapshot intact, nothing half-written listed', async () => {
      const { local, error, cleanup } = await failMidUpload(storage, proxy, 256 * 1024)
      try {
        expect((error as Error).message).to.match(/^storage "dav" \(webdav\) failed: /)
        await expectOnlyFirstSnapshot(storage)
        await expectOnlyFirstSnapshot(local)
      } finally {
        await cleanup()
      }
    })
  })
})
