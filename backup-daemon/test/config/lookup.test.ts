/**
 * Which config file the CLI reads without `--config`: real child processes of bin/backup-daemon.js with
 * their own working directory and HOME, and real files. Also the scheduler-only mode
 * (`server.enabled: false`) of a real daemon, and check-config's notices.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { createServer, connect } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { findConfigFile } from '../../src/config/findConfigFile.js'
import { tempDir } from '../engine/helpers.js'

const bin = fileURLToPath(new URL('../../bin/backup-daemon.js', import.meta.url))

interface Result {
  code: number | null
  stdout: string
  stderr: string
}

function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Result> {
  const clean = { ...process.env }
  delete clean.BACKUP_DAEMON_CONFIG
  delete clean.SNAPR_CONFIG_FILE
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...clean, FORCE_COLOR: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

/** A valid config with `jobs` jobs (check-config says how many, which tells the files apart). */
const configWith = (jobs: number) =>
  `dataDir: ./data\njobs:\n${Array.from({ length: jobs }, (_, i) => `  - name: j${i}\n    sources: [{ type: local, path: /srv }]\n    storages: [{ type: local, name: d, path: ./b }]\n`).join('')}`

describe('config file lookup (no --config)', function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let cwd: string
  let home: string
  beforeEach(async () => {
    tmp = await tempDir()
    cwd = join(tmp.dir, 'work')
    home = join(tmp.dir, 'home')
    await mkdir(join(home, '.config', 'snapr'), { recursive: true })
    await mkdir(cwd, { recursive: true })
  })
  afterEach(() => tmp.remove())

  it('takes the first of ./snapr.yaml, ~/.config/snapr/snapr.yaml, ~/snapr.yaml', async () => {
    await writeFile(join(home, 'snapr.yaml'), configWith(3))
    expect((await cli(['check-config'], cwd, { HOME: home })).stdout).to.include('config OK: 3 job(s)')
    await writeFile(join(home, '.config', 'snapr', 'snapr.yaml'), configWith(2))
    expect((await cli(['check-config'], cwd, { HOME: home })).stdout).to.include('config OK: 2 job(s)')
    await writeFile(join(cwd, 'snapr.yaml'), configWith(1))
    expect((await cli(['check-config'], cwd, { HOME: home })).stdout).to.include('config OK: 1 job(s)')
  })

  it('$BACKUP_DAEMON_CONFIG, then $SNAPR_CONFIG_FILE, win over the search paths; --config over both', async () => {
    await writeFile(join(cwd, 'snapr.yaml'), configWith(1))
    await writeFile(join(tmp.dir, 'snapr-env.yaml'), configWith(4))
    await writeFile(join(tmp.dir, 'ours.yaml'), configWith(5))
    await writeFile(join(tmp.dir, 'flag.yaml'), configWith(6))
    const snaprEnv = { HOME: home, SNAPR_CONFIG_FILE: join(tmp.dir, 'snapr-env.yaml') }
    expect((await cli(['check-config'], cwd, snaprEnv)).stdout).to.include('config OK: 4 job(s)')
    const both = { ...snaprEnv, BACKUP_DAEMON_CONFIG: join(tmp.dir, 'ours.yaml') }
    expect((await cli(['check-config'], cwd, both)).stdout).to.include('config OK: 5 job(s)')
    expect((await cli(['check-config', '--config', join(tmp.dir, 'flag.yaml')], cwd, both)).stdout).to.include('config OK: 6 job(s)')
  })

  it('a variable naming a missing file is an error, not a fallback; nothing found names every place searched', async () => {
    await writeFile(join(cwd, 'snapr.yaml'), configWith(1))
    const missing = await cli(['check-config'], cwd, { HOME: home, SNAPR_CONFIG_FILE: join(tmp.dir, 'nope.yaml') })
    expect(missing.code).to.equal(2)
    expect(missing.stderr).to.include(`$SNAPR_CONFIG_FILE names ${join(tmp.dir, 'nope.yaml')}, which does not exist`)
    const none = await cli(['check-config'], home, { HOME: join(tmp.dir, 'empty-home') })
    expect(none.code).to.equal(2)
    expect(none.stderr)
      .to.include(`${join(home, 'snapr.yaml')}, ${join(tmp.dir, 'empty-home', '.config', 'snapr', 'snapr.yaml')}`)
      .and.include('/etc/snapr/snapr.yaml')
  })

  it('/etc/snapr/snapr.yaml comes last', () => {
    const found = findConfigFile({ env: {}, cwd: '/w', home: '/h', exists: (p) => p === '/etc/snapr/snapr.yaml' || p === '/h/snapr.yaml' })
    expect(found).to.deep.equal({ file: '/h/snapr.yaml', source: 'search path' })
    expect(findConfigFile({ env: {}, cwd: '/w', home: '/h', exists: (p) => p === '/etc/snapr/snapr.yaml' })).to.deep.equal({
      file: '/etc/snapr/snapr.yaml',
      source: 'search path',
    })
  })

  it('check-config prints a notice per original spelling, with its place; the config is still OK', async () => {
    await writeFile(
      join(cwd, 'snapr.yaml'),
      'logs: { path: ./logs }\njobs:\n  - name: j\n    sources: [{ type: local, path: /srv, excludes: ["*.tmp"] }]\n    storages: [{ type: local, name: d, path: ./b }]\n',
    )
    const result = await cli(['check-config'], cwd, { HOME: home })
    expect(result.code).to.equal(0)
    const file = join(cwd, 'snapr.yaml')
    expect(result.stdout.split('\n')).to.include.members([
      `notice: ${file}:1:9 logs.path: "path" is the original's spelling of "directory"; both work, "directory" is preferred`,
      `notice: ${file}:4:42 jobs[0].sources[0].excludes: "excludes" is the original's spelling of "exclude"; both work, "exclude" is preferred`,
      'config OK: 1 job(s)',
    ])
  })

  it('server.enabled: false runs the schedules without a listener, and stops on SIGTERM', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number }
        probe.close(() => resolve(free))
      })
    })
    await writeFile(join(cwd, 'snapr.yaml'), `server: { enabled: false, address: "127.0.0.1:${port}" }\n${configWith(1)}`)
    const clean = { ...process.env }
    delete clean.BACKUP_DAEMON_CONFIG
    delete clean.SNAPR_CONFIG_FILE
    const child = spawn(process.execPath, [bin], { cwd, env: { ...clean, HOME: home, FORCE_COLOR: '' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    const deadline = Date.now() + 60_000
    while (!stdout.includes('\n') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(stdout).to.include('running the schedules only (server.enabled: false, no HTTP listener)')
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.on('connect', () => (socket.destroy(), resolve(false)))
      socket.on('error', () => resolve(true))
    })
    expect(refused).to.equal(true)
    child.kill('SIGTERM')
    expect(await exited).to.equal(0)
  })
})
