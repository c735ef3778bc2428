/**
 * @module test/startup/describeFailure
 * Issue 24 #12: the daemon started by hand as a user who cannot write its data folder dies with one line
 * naming the path and what to do, not a stack trace; `--debug` or `DEBUG=1` adds the stack. The real
 * command runs as `nobody` (setpriv; needs root), and once against a port another process holds.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeFailure } from '../../src/startup/describeFailure.js'
import { assertReadableBy } from '../support/readableBy.js'
import { daemonBin } from '../support/runCli.js'

function runAs(user: string | undefined, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const command = user ? 'setpriv' : process.execPath
  const argv = user ? [`--reuid=${user}`, '--regid=nogroup', '--clear-groups', process.execPath, daemonBin, ...args] : [daemonBin, ...args]
  // A temporary folder of its own: a daemon sweeps the folders of dead daemons it finds there and says so, and
  // other suites on the machine kill daemons (kill -9 tests), which would add that line to the one checked here.
  const tmp = mkdtempSync(join(tmpdir(), 'bd-startup-tmp-'))
  chmodSync(tmp, 0o777)
  const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBUG: '', FORCE_COLOR: '', TMPDIR: tmp, ...env } })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) =>
    child.on('close', (code) => {
      rmSync(tmp, { force: true, recursive: true })
      resolve({ code, stderr })
    }),
  )
}

describe('start-up failures: one line naming the path and what to do (issue 24 #12)', function () {
  this.timeout(60_000)
  let dir: string
  let config: string
  before(function () {
    if (process.getuid?.() !== 0) throw new Error('needs root (setpriv to run the daemon as nobody)')
    assertReadableBy('nobody', daemonBin)
    dir = mkdtempSync(join(tmpdir(), 'bd-startup-'))
    chmodSync(dir, 0o755)
    const data = join(dir, 'data')
    mkdirSync(data, { mode: 0o755 }) // root's: nobody cannot create data/logs in it
    config = join(dir, 'daemon.yaml')
    writeFileSync(
      config,
      `dataDir: ${data}\nserver: { address: '127.0.0.1:0' }\njobs:\n  - name: n\n    sources: [{ type: local, path: ${dir} }]\n    storages: [{ type: local, name: d, path: ${data}/b }]\n`,
      { mode: 0o644 },
    )
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('EACCES on the logs folder: one line naming it, the user and what to run', async () => {
    const { code, stderr } = await runAs('nobody', ['--config', config])
    expect(code).to.equal(1)
    expect(stderr.trim().split('\n')).to.have.length(1)
    expect(stderr).to.include(`cannot create the folder ${join(dir, 'data', 'logs')}: permission denied for user nobody`)
    expect(stderr).to.include(`chown -R nobody ${join(dir, 'data')}`)
    expect(stderr).not.to.match(/\n\s+at /)
  })

  it('--debug and DEBUG=1 add the stack trace below the line', async () => {
    for (const [args, env] of [
      [['--config', config, '--debug'], {}],
      [['--config', config], { DEBUG: '1' }],
    ] as const) {
      const { code, stderr } = await runAs('nobody', [...args], env)
      expect(code).to.equal(1)
      expect(stderr.split('\n')[0]).to.include('cannot create the folder')
      expect(stderr).to.match(/\n\s+at /)
    }
  })

  it('a port in use: one line naming the address and server.address', async () => {
    const holder: Server = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const { port } = holder.address() as AddressInfo
    const writable = join(dir, 'busy.yaml')
    writeFileSync(
      writable,
      `dataDir: ${join(dir, 'busy')}\nserver: { address: '127.0.0.1:${port}' }\njobs:\n  - name: n\n    sources: [{ type: local, path: ${dir} }]\n    storages: [{ type: local, name: d, path: ${dir}/busy/b }]\n`,
    )
    try {
      const { code, stderr } = await runAs(undefined, ['--config', writable])
      expect(code).to.equal(1)
      expect(stderr.trim()).to.equal(
        `backup-daemon: cannot listen on 127.0.0.1:${port}: the address is in use by another process; stop it or change server.address`,
      )
    } finally {
      holder.close()
    }
  })

  it('describes other file errors and non-system errors in one line', () => {
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open '/x/y'"), { code: 'ENOENT', syscall: 'open', path: '/x/y' })
    expect(describeFailure(enoent, { debug: false })).to.equal('backup-daemon: cannot open /x/y: it does not exist: create it, or fix the path in the config\n')
    const erofs = Object.assign(new Error('EROFS'), { code: 'EROFS', syscall: 'mkdir', path: '/etc/snaps' })
    expect(describeFailure(erofs, { debug: false }))
      .to.include('cannot create the folder /etc/snaps: the file system is read-only')
      .and.include('ReadWritePaths')
    expect(describeFailure(new TypeError('boom\nsecond line'), { debug: false })).to.equal('backup-daemon: boom (run with --debug for the stack trace)\n')
  })
})
