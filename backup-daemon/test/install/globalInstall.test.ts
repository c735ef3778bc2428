/**
 * @module test/install/globalInstall
 * The daemon as an operator installs it (issue 15): `npm pack` the package, `npm install -g <tarball>
 * --prefix <dir>` as root, make the prefix read-only, then run the installed `backup-daemon` as `nobody`
 * on plain node: `--version`, then `--config`: it serves its UI, runs a job (local source -> local
 * storage) and exits 0 on SIGTERM, and no file under the prefix changed (nothing compiled at start, so a
 * root-owned install and the systemd unit's ProtectSystem=strict work).
 *
 * Needs root (to install as root and switch to `nobody` with setpriv); skipped with a message otherwise.
 * The installed prefix is cached under $TMPDIR keyed by the tarball's sha256 (the install fetches ~90 MB
 * of dependencies, through the npm cache): an unchanged package is packed again (the prepack build) but
 * not installed again.
 *
 * Runs alone (scripts/run-tests.mjs): `npm pack` runs the package's prepack build in the package folder other files read.
 */
import { expect } from 'chai'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify } from 'yaml'

const packageDir = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { name: string; version: string }
const installedDir = (prefix: string) => join(prefix, 'lib', 'node_modules', ...pkg.name.split('/'))

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

/** Every path under `dir` with its type, mode, size and mtime: what "no file changed" compares. */
function listing(dir: string): string[] {
  const lines: string[] = []
  const walk = (path: string) => {
    const stat = lstatSync(path)
    lines.push(`${path.slice(dir.length)} ${stat.mode.toString(8)} ${stat.size} ${stat.mtimeMs}`)
    if (stat.isDirectory()) for (const entry of readdirSync(path).sort()) walk(join(path, entry))
  }
  walk(dir)
  return lines
}

/** A folder (and its parents up to $TMPDIR) that `nobody` can traverse. */
function openDir(path: string): string {
  mkdirSync(path, { recursive: true })
  for (let dir = path; dir.startsWith(tmpdir()) && dir !== tmpdir(); dir = dirname(dir)) chmodSync(dir, 0o755)
  return path
}

/** Packs the package (its prepack script builds dist/ and writes the published manifest); returns the tarball. */
function pack(destination: string): string {
  const out = run('npm', ['pack', '--pack-destination', destination, '--silent'], { cwd: packageDir })
  const file = out.trim().split('\n').pop()!
  return join(destination, file)
}

/** Installs the tarball globally into a prefix cached by the tarball's hash; returns the prefix. */
function installGlobally(tarball: string): string {
  const hash = createHash('sha256').update(readFileSync(tarball)).digest('hex').slice(0, 16)
  const cache = openDir(join(tmpdir(), 'backup-daemon-global-install'))
  const prefix = join(cache, hash)
  if (existsSync(join(prefix, 'bin', 'backup-daemon'))) return prefix
  const temp = join(cache, `${hash}.${process.pid}.tmp`)
  rmSync(temp, { recursive: true, force: true })
  run('npm', ['install', '-g', tarball, '--prefix', temp, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'])
  // The bin link is relative (../lib/node_modules/...), so the finished prefix can be renamed into place.
  renameSync(temp, prefix)
  chmodSync(prefix, 0o755)
  // Installs of older tarballs (~90 MB each), once nothing can be using them any more.
  for (const entry of readdirSync(cache)) {
    const path = join(cache, entry)
    if (entry !== hash && Date.now() - lstatSync(path).mtimeMs > 3600_000) rmSync(path, { recursive: true, force: true })
  }
  return prefix
}

function idOf(args: string[]): number {
  return Number(run('id', args).trim())
}

/** Runs the installed command as `nobody:nogroup` with a minimal environment (no tsx, no NODE_OPTIONS). */
function asNobody(prefix: string, args: string[], home: string): ChildProcess {
  const env = { PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, FORCE_COLOR: '0', NO_COLOR: '1' }
  const setpriv = ['--reuid=nobody', '--regid=nogroup', '--clear-groups']
  return spawn('setpriv', [...setpriv, 'backup-daemon', ...args], { env, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] })
}

function collect(child: ChildProcess): { output: () => string; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()))
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  return { output: () => output, exit }
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, output: () => string, seconds = 60): Promise<T> {
  const deadline = Date.now() + seconds * 1000
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${seconds} s:\n${output()}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

describe('global install (npm pack, npm install -g, run as nobody on plain node)', function () {
  this.timeout(900_000)
  let prefix: string
  let tarball: string
  let work: string
  const cleanups: (() => void)[] = []

  before(function () {
    if (process.getuid?.() !== 0) {
      throw new Error('the global-install test installs as root and runs the daemon as nobody: run the suite as root (CI does)')
    }
    const packDir = mkdtempSync(join(tmpdir(), 'backup-daemon-pack-'))
    cleanups.push(() => rmSync(packDir, { recursive: true, force: true }))
    tarball = pack(packDir)
    prefix = installGlobally(tarball)
    // Read-only for everyone (root bypasses modes, so the listing comparison below is what proves nothing writes).
    run('chmod', ['-R', 'a-w', prefix])
    work = openDir(mkdtempSync(join(tmpdir(), 'backup-daemon-nobody-')))
    cleanups.push(() => rmSync(work, { recursive: true, force: true }))
  })

  after(() => {
    for (const cleanup of cleanups.reverse()) cleanup()
  })

  it('packs only what ships: the build with declarations and source maps, the UI assets; no sources, tests or fixtures', () => {
    const files = run('tar', ['-tzf', tarball]).trim().split('\n')
    expect(files).to.include.members(['package/package.json', 'package/bin/backup-daemon.js', 'package/dist/cli/main.js', 'package/dist/index.d.ts'])
    expect(files).to.include.members(['package/dist/cli/main.js.map', 'package/ui/assets/index.html', 'package/systemd/backup-daemon.service'])
    const unwanted = /^package\/(src|test|bench|scripts|node_modules|dist\/types)\/|fixtures|\.test\.|tsbuildinfo|bundleCli/
    expect(files.filter((f) => unwanted.test(f))).to.deep.equal([])
    const manifest = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json'])) as Record<string, any>
    expect(manifest.exports['.']).to.deep.equal({ types: './dist/index.d.ts', default: './dist/index.js' })
    expect(manifest.dependencies).to.not.have.any.keys('tsx', 'esbuild')
    expect(manifest.engines.node).to.equal('>=20.19')
    // The workspace manifest is back after the pack (postpack).
    expect(JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).exports['.']).to.equal('./src/index.ts')
    expect(existsSync(join(packageDir, 'package.workspace.json'))).to.equal(false)
  })

  it('installs no build tool: neither tsx nor esbuild is in the installed tree', () => {
    const modules = join(installedDir(prefix), 'node_modules')
    for (const tool of ['tsx', 'esbuild']) {
      expect(existsSync(join(modules, tool)), tool).to.equal(false)
      expect(existsSync(join(prefix, 'lib', 'node_modules', tool)), tool).to.equal(false)
    }
    expect(existsSync(join(installedDir(prefix), 'src'))).to.equal(false)
  })

  it("matches the systemd unit: ExecStart names the command, found in the prefix's bin on systemd's search path, which the install creates", () => {
    const unit = readFileSync(join(packageDir, 'systemd', 'backup-daemon.service'), 'utf8')
    // Not a folder: npm's global bin is /usr/bin (Debian's nodejs) or /usr/local/bin, both on systemd's path (issue 24 #11).
    expect(unit).to.match(/^ExecStart=backup-daemon --config /m)
    expect(unit).to.match(/^ProtectSystem=strict$/m)
    expect(lstatSync(join(prefix, 'bin', 'backup-daemon')).isSymbolicLink()).to.equal(true)
  })

  it('runs as nobody from the read-only install: --version, serves the UI, runs a job, exits 0 on SIGTERM; nothing under the prefix changes', async () => {
    const before = listing(prefix)
    const uid = idOf(['-u', 'nobody'])
    const gid = Number(run('getent', ['group', 'nogroup']).split(':')[2])

    const version = collect(asNobody(prefix, ['--version'], work))
    expect(await version.exit, version.output()).to.deep.equal({ code: 0, signal: null })
    expect(version.output()).to.equal(`${pkg.version}\n`)

    // Source readable by nobody (root-owned), storage and data folders owned by nobody.
    const source = openDir(join(work, 'source'))
    writeFileSync(join(source, 'a.txt'), 'hello from the source\n')
    mkdirSync(join(source, 'sub'))
    chmodSync(join(source, 'sub'), 0o755)
    writeFileSync(join(source, 'sub', 'b.bin'), Buffer.alloc(200_000, 7))
    for (const name of ['storage', 'data']) {
      mkdirSync(join(work, name))
      chownSync(join(work, name), uid, gid)
    }
    const config = join(work, 'backup-daemon.yaml')
    writeFileSync(
      config,
      stringify({
        dataDir: join(work, 'data'),
        server: { address: '127.0.0.1:0', secret: 'install-test-secret-0123456789abcdef0123', permissions: { allowManualRun: true }, ui: { enabled: true } },
        logs: { system: true, perJob: true, directory: join(work, 'data', 'logs') },
        jobs: [
          {
            name: 'files',
            compression: 'tar.gz',
            sources: [{ type: 'local', name: 'src', path: source }],
            storages: [{ type: 'local', name: 'disk', path: join(work, 'storage') }],
          },
        ],
      }),
    )
    chmodSync(config, 0o644)

    const child = asNobody(prefix, ['--config', config], work)
    const daemon = collect(child)
    const url = await waitFor('listening', async () => /listening on (http:\/\/\S+)/.exec(daemon.output())?.[1], daemon.output)
    try {
      const index = await fetch(`${url}/`)
      expect(index.status).to.equal(200)
      const html = await index.text()
      const asset = /src="(\/static\/[^"]+\.js)"/.exec(html)?.[1]
      expect(asset, html).to.be.a('string')
      const script = await fetch(`${url}${asset}`)
      expect(script.status).to.equal(200)
      expect(Buffer.from(await script.arrayBuffer()).equals(readFileSync(join(installedDir(prefix), 'ui', 'assets', asset!.slice(1))))).to.equal(true)

      const started = await fetch(`${url}/api/v1/jobs/files/run`, { method: 'POST' })
      expect(started.status, await started.text()).to.equal(202)
      const result = await waitFor(
        'the run',
        async () => {
          type Status = { status: string; lastRun: string; lastResult: { success: boolean; error: string } }
          const status = (await (await fetch(`${url}/api/v1/jobs/files/status`)).json()) as Status
          return status.status !== 'running' && status.lastRun ? status.lastResult : undefined
        },
        daemon.output,
      )
      expect(result, daemon.output()).to.include({ success: true })
      const { backups } = (await (await fetch(`${url}/api/v1/jobs/files/backups`)).json()) as { backups: { name: string; size: number }[] }
      expect(backups).to.have.length(1)
      expect(backups[0]!.size).to.be.greaterThan(0)
      expect(readdirSync(join(work, 'storage'), { recursive: true }).length).to.be.greaterThan(0)

      child.kill('SIGTERM')
      expect(await daemon.exit, daemon.output()).to.deep.equal({ code: 0, signal: null })
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
    expect(listing(prefix)).to.deep.equal(before)
  })

  it("passes the README's first check of the installed example, run as written (issue 38: it backed up ../src, which is not shipped)", () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8')
    const line = /^sudo (backup-daemon check-config --config "\$\(npm root -g\)\/.*)$/m.exec(readme)?.[1]
    expect(line, 'the README names the check after install').to.be.a('string')
    // As root (the test is), the README's `sudo`; `npm root -g` answers the test's prefix.
    const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, npm_config_prefix: prefix, NO_COLOR: '1' }
    const result = spawnSync('sh', ['-c', line!], { encoding: 'utf8', env })
    expect(result.status, `${result.stdout}${result.stderr}`).to.equal(0)
    expect(result.stdout).to.match(/^config OK: 2 job\(s\)$/m)
    expect(listing(prefix).join('\n')).to.not.include('/examples/data')
  })
})
