import { expect } from 'chai'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { copyFile, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { homedir, userInfo } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { promisify } from 'node:util'
import { sftpStorage, type SftpStorageConfig } from '../../src/storages/sftp/index.js'
import type { Storage } from '../../src/storages/types.js'
import { runStorageSuite } from '../support/runStorageSuite.js'
import { startSshServer, type SshServer } from '../support/sshServer.js'

const never = () => new AbortController().signal
const bytes = (text: string) => Readable.from([Buffer.from(text)])

describe('storages/sftp (against a throwaway OpenSSH sshd)', function () {
  this.timeout(60_000)
  let server: SshServer
  let run = 0
  before(async () => {
    server = await startSshServer()
  })
  after(() => server.stop())

  const config = (extra: Partial<Record<keyof SftpStorageConfig, unknown>> = {}): SftpStorageConfig =>
    sftpStorage.configSchema.parse({
      type: 'sftp',
      name: 'ssh',
      host: server.host,
      port: server.port,
      username: server.username,
      privateKey: server.clientKey,
      knownHosts: server.knownHosts,
      path: join(server.root, `t${++run}`),
      ...extra,
    })
  const create = (extra: Parameters<typeof config>[0] = {}, log?: (level: string, message: string) => void) =>
    sftpStorage.create(config(extra), log ? { log } : undefined)

  describe('storage suite', () => {
    runStorageSuite({ newStorage: async () => create() })
  })

  it('creates a missing `path` and keeps every object below it, files mode 0600', async () => {
    const path = join(server.root, 'deep', 'er', 'backups')
    const storage = create({ path })
    await (await storage.write('job', bytes('x'), never())).commit('job/a.tar')
    expect(await readdir(join(path, 'job'))).to.deep.equal(['a.tar'])
    expect((await stat(join(path, 'job', 'a.tar'))).mode & 0o777).to.equal(0o600)
    await storage.delete('job/a.tar')
    // The emptied job folder goes, the configured folder stays.
    expect(await readdir(path)).to.deep.equal([])
  })

  it('downloads byte-identical what it uploaded (several requests in flight both ways)', async () => {
    const storage = create()
    const body = randomBytes(5 * 1024 * 1024 + 12345)
    await (await storage.write('job', Readable.from([body.subarray(0, 1_000_000), body.subarray(1_000_000)]), never())).commit('job/big.bin')
    const back = await buffer(await storage.open('job/big.bin'))
    expect(back.equals(body)).to.equal(true)
  })

  it('logs in with a passphrase-protected key, and refuses a wrong passphrase without echoing it', async () => {
    const good = create({ privateKey: server.lockedKey, passphrase: server.passphrase })
    await (await good.write('job', bytes('locked'), never())).commit('job/l')
    expect((await buffer(await good.open('job/l'))).toString()).to.equal('locked')
    const bad = create({ privateKey: server.lockedKey, passphrase: 'not the passphrase' })
    const err = (await bad.list('job/').catch((e: unknown) => e)) as Error
    expect(err).to.be.instanceOf(Error)
    expect(err.message).not.to.include('not the passphrase')
    expect(bad.isRetryable(err)).to.equal(false)
  })

  it('refuses a key the server does not accept, naming the user and host, not retried', async () => {
    const stranger = join(server.dir, 'stranger')
    await promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger])
    const storage = create({ privateKey: stranger })
    const err = (await storage.list('x/').catch((e: unknown) => e)) as Error
    expect(err.message).to.include(`authentication as "${server.username}" at 127.0.0.1:${server.port} failed`)
    expect(storage.isRetryable(err)).to.equal(false)
  })

  it('refuses an unknown host key with the host and its SHA256 fingerprint', async () => {
    const empty = join(server.dir, 'known_hosts_empty')
    await writeFile(empty, '# nothing yet\n')
    const storage = create({ knownHosts: empty })
    const err = (await storage.list('x/').catch((e: unknown) => e)) as Error
    expect(err.message).to.include(`127.0.0.1:${server.port}`)
    expect(err.message).to.include(server.hostKeyFingerprint)
    expect(err.message).to.match(/unknown/)
    expect(storage.isRetryable(err)).to.equal(false)
    const missing = (await create({ knownHosts: join(server.dir, 'no_such_file') })
      .list('x/')
      .catch((e: unknown) => e)) as Error
    expect(missing.message).to.include('no such file')
    expect(missing.message).to.include(server.hostKeyFingerprint)
  })

  it('refuses a changed host key (another key of the same type on record)', async () => {
    const other = join(server.dir, 'other_host_key')
    await promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other])
    const [type, key] = (await readFile(`${other}.pub`, 'utf8')).split(/\s+/)
    const changed = join(server.dir, 'known_hosts_changed')
    await writeFile(changed, `[127.0.0.1]:${server.port} ${type} ${key}\n`)
    const err = (await create({ knownHosts: changed })
      .list('x/')
      .catch((e: unknown) => e)) as Error
    expect(err.message).to.include('CHANGED')
    expect(err.message).to.include(`127.0.0.1:${server.port}`)
    expect(err.message).to.include(server.hostKeyFingerprint)
  })

  it('accepts hashed known_hosts entries (HashKnownHosts yes)', async () => {
    const hashed = join(server.dir, 'known_hosts_hashed')
    await copyFile(server.knownHosts, hashed)
    await promisify(execFile)('ssh-keygen', ['-H', '-f', hashed])
    expect(await readFile(hashed, 'utf8')).to.match(/^\|1\|/)
    expect(await create({ knownHosts: hashed }).list('x/')).to.deep.equal([])
  })

  it('strictHostKey: false connects to an unknown host and logs a warning with the fingerprint', async () => {
    const empty = join(server.dir, 'known_hosts_none')
    await writeFile(empty, '')
    const warnings: string[] = []
    const storage = create({ knownHosts: empty, strictHostKey: false }, (level, message) => level === 'warn' && warnings.push(message))
    expect(await storage.list('x/')).to.deep.equal([])
    expect(warnings).to.have.length(1)
    expect(warnings[0]).to.include(server.hostKeyFingerprint)
    expect(warnings[0]).to.include('strictHostKey is off')
  })

  it('retries a refused connection (server not up yet) and reports it as retryable', async () => {
    const storage = create({ port: 1 })
    const err = (await storage.list('x/').catch((e: unknown) => e)) as Error
    expect((err as { code?: string }).code).to.equal('ECONNREFUSED')
    expect(storage.isRetryable(err)).to.equal(true)
  })

  it('config: defaults (port 22, the OS user, ~/.ssh/known_hosts, path "."), ~ expanded, secrets declared', () => {
    const parsed = sftpStorage.configSchema.parse({ type: 'sftp', name: 's', host: 'h', privateKey: '~/.ssh/id_ed25519' })
    expect(parsed).to.deep.include({
      port: 22,
      username: userInfo().username,
      knownHosts: join(homedir(), '.ssh', 'known_hosts'),
      path: '.',
      strictHostKey: true,
      privateKey: join(homedir(), '.ssh', 'id_ed25519'),
    })
    expect(sftpStorage.configSchema.safeParse({ type: 'sftp', name: 's', host: 'h' }).success, 'no credentials').to.equal(false)
    expect(sftpStorage.configSchema.safeParse({ type: 'sftp', name: 's', host: 'h', password: 'p', port: 70000 }).success).to.equal(false)
    expect(sftpStorage.secretKeys).to.have.members(['password', 'passphrase'])
  })

  it('closes an idle connection, so a process that used it exits by itself', async () => {
    const storage: Storage = create()
    await storage.list('x/')
    // A child that lists once and must then exit by itself (no process.exit) within the test timeout.
    const script = `
      const { sftpStorage } = await import(${JSON.stringify(new URL('../../src/storages/sftp/index.ts', import.meta.url).href)})
      const s = sftpStorage.create(sftpStorage.configSchema.parse(${JSON.stringify(config())}))
      console.log(JSON.stringify(await s.list('x/')))
    `
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 30_000 })
    expect(stdout.trim()).to.equal('[]')
  })
})
