/**
 * `npm start` binds every server to loopback unless `BIND_ADDRESS` says otherwise: the daemon is started
 * for real with the configuration the dev-app writes and its listening socket read from /proc/net/tcp
 * (and connections tried through 127.0.0.2 and every non-loopback address, which must be refused); the emulator is
 * started as main.ts starts it; the CMS gets `next start -H <address>` (its build is too slow for a test).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { freePort } from '../../../backup-daemon/test/support/freePort.js'
import { parse } from 'yaml'
import { startEmulator } from '../../src/emulator/index.js'
import { cmsStartArgs } from '../../src/start/cmsCommand.js'
import { writeDaemonConfig } from '../../src/start/daemonConfig.js'

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url))

/** Local addresses of listening IPv4 TCP sockets on `port` (from /proc/net/tcp, state 0A = LISTEN). */
async function listeningAddresses(port: number): Promise<string[]> {
  const table = await readFile('/proc/net/tcp', 'utf8')
  const found: string[] = []
  for (const line of table.split('\n').slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/)
    if (!local || state !== '0A') continue
    const [hexIp, hexPort] = local.split(':') as [string, string]
    if (parseInt(hexPort, 16) !== port) continue
    // Little-endian bytes: 0100007F = 127.0.0.1.
    found.push(
      hexIp
        .match(/../g)!
        .reverse()
        .map((b) => parseInt(b, 16))
        .join('.'),
    )
  }
  return found
}

/**
 * Addresses of this machine other than 127.0.0.1: always 127.0.0.2 (Linux routes all of 127.0.0.0/8 to the
 * loopback interface, so it reaches this machine but not a socket bound to 127.0.0.1 only), then every IPv4
 * address that is not loopback. Never empty: a check over them always checks something.
 */
function otherLocalAddresses(): string[] {
  const external = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === 'IPv4' && !a.internal).map((a) => a.address))
  return ['127.0.0.2', ...external]
}

/** Resolves `true` when a TCP connection to host:port is accepted, `false` when refused. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 5000 })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
  })
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s`)
}

describe('dev-app: listening address', function () {
  this.timeout(120_000)
  let dir: string

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dev-app-bind-'))
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('defaults to 127.0.0.1, and BIND_ADDRESS changes it', async () => {
    const script = "const { settings } = await import('./src/settings.ts'); console.log(settings.bindAddress)"
    const run = (env: NodeJS.ProcessEnv) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          cwd: path.join(repoRoot, 'dev-app'),
          env,
          stdio: ['ignore', 'pipe', 'inherit'],
        })
        let out = ''
        child.stdout.on('data', (c: Buffer) => (out += c.toString()))
        child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}`))))
      })
    const { BIND_ADDRESS: _, ...withoutVariable } = process.env
    expect(await run(withoutVariable)).to.equal('127.0.0.1')
    expect(await run({ ...withoutVariable, BIND_ADDRESS: '0.0.0.0' })).to.equal('0.0.0.0')
  })

  it('gives the CMS the address: next start -H', () => {
    const args = cmsStartArgs({ bindAddress: '127.0.0.1', port: 3999, repoRoot })
    expect(args.slice(1)).to.deep.equal(['start', '-H', '127.0.0.1', '-p', '3999'])
    expect(args[0]).to.equal(path.join(repoRoot, 'node_modules', 'next', 'dist', 'bin', 'next'))
  })

  it('the backup daemon started with the written configuration listens on 127.0.0.1 only', async () => {
    const port = await freePort()
    const input = {
      dataDir: dir,
      port,
      username: 'admin',
      passwordHash: 'x',
      secret: 'bind-test-secret-0123456789abcdef',
      databaseUri: `file:${path.join(dir, 'cms.db')}`,
      host: { endpoint: 'http://127.0.0.1:9/storage', zoneName: 'z', accessKey: 'k' },
    }
    expect((parse(await readFile(writeDaemonConfig({ ...input, bindAddress: '::1' }), 'utf8')) as { server: { address: string } }).server.address).to.equal(
      `[::1]:${port}`,
    )
    const config = writeDaemonConfig({ ...input, bindAddress: '127.0.0.1' })
    expect((parse(await readFile(config, 'utf8')) as { server: { address: string } }).server.address).to.equal(`127.0.0.1:${port}`)

    const daemon = spawn(process.execPath, [path.join(repoRoot, 'backup-daemon', 'bin', 'backup-daemon.js'), '--config', config], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    daemon.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)))
    try {
      await waitUntil(() => accepts('127.0.0.1', port), `the daemon did not listen (${stderr})`)
      expect(await listeningAddresses(port)).to.deep.equal(['127.0.0.1'])
      for (const other of otherLocalAddresses()) expect(await accepts(other, port), `reachable through ${other}`).to.equal(false)
    } finally {
      daemon.kill('SIGTERM')
      await new Promise((resolve) => daemon.once('exit', resolve))
    }
  })

  it('the emulator, started as npm start starts it, listens on 127.0.0.1 only', async () => {
    const emulator = await startEmulator({ host: '127.0.0.1' })
    try {
      const port = Number(new URL(emulator.url).port)
      expect(await listeningAddresses(port)).to.deep.equal(['127.0.0.1'])
      for (const other of otherLocalAddresses()) expect(await accepts(other, port), `reachable through ${other}`).to.equal(false)
    } finally {
      await emulator.close()
    }
  })
})
