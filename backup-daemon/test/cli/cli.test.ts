import { expect } from 'chai'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { verifyPassword } from '../../src/auth/password.js'
import { loadConfig } from '../../src/config/loadConfig.js'
import { createEngine } from '../../src/engine/createEngine.js'
import { JobBusyError } from '../../src/runs/errors.js'
import { listCatalog } from '../../src/repository/archives/catalog.js'
import { LocalStorage } from '../../src/storages/local.js'
import { makeTree, tempDir, waitFor, writeConfig } from '../engine/helpers.js'

const bin = fileURLToPath(new URL('../../bin/backup-daemon.js', import.meta.url))

interface Result {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Starts `backup-daemon ...args` as a real child process. */
function start(args: string[], cwd: string, stdin?: string): { child: ChildProcess; done: Promise<Result>; output: () => string } {
  const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '' } })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => (stdout += chunk))
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  if (stdin !== undefined) child.stdin!.end(stdin)
  const done = new Promise<Result>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, done, output: () => stdout }
}
const cli = (args: string[], cwd: string, stdin?: string) => start(args, cwd, stdin).done

const filesBelow = async (dir: string) =>
  (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))

describe('backup-daemon CLI (child processes of bin/backup-daemon.js)', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  const children: ChildProcess[] = []
  beforeEach(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
  })
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await tmp.remove()
  })

  it('prints help and version, and refuses unknown commands', async () => {
    const help = await cli(['--help'], tmp.dir)
    expect(help.code).to.equal(0)
    expect(help.stdout).to.match(/Usage: backup-daemon/)
    const version = await cli(['--version'], tmp.dir)
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'))
    expect(version.stdout.trim()).to.equal(pkg.version)
    const unknown = await cli(['frobnicate'], tmp.dir)
    expect(unknown.code).to.equal(2)
    expect(unknown.stderr).to.match(/unknown command "frobnicate"/)
  })

  it('check-config: "config OK", or every error as file:line:column key: message with exit 1', async () => {
    const file = await writeConfig(tmp.dir, [{ name: 'a' }])
    const good = await cli(['check-config', '--config', file], tmp.dir)
    expect(good.code).to.equal(0)
    expect(good.stdout).to.match(/config OK/)
    await writeFile(
      join(tmp.dir, 'bad.yaml'),
      'server:\n  adress: x\njobs:\n  - name: a\n    schedule: "nope"\n    sources: []\n    storages: []\n  - name: a\n',
    )
    const bad = await cli(['check-config', '-c', 'bad.yaml'], tmp.dir)
    expect(bad.code).to.equal(1)
    const lines = bad.stderr.trim().split('\n')
    expect(lines).to.include('bad.yaml:2:3 server.adress: unknown key "adress"; did you mean "address"?')
    expect(lines.some((l) => /^bad\.yaml:5:15 jobs\[0\]\.schedule: invalid cron expression/.test(l))).to.equal(true)
    expect(lines.some((l) => /^bad\.yaml:8:11 jobs\[1\]\.name: duplicate job name "a"/.test(l))).to.equal(true)
    const serve = await cli(['--config', 'bad.yaml'], tmp.dir)
    expect(serve.code).to.equal(1)
    expect(serve.stderr).to.include('bad.yaml:2:3 server.adress: unknown key "adress"')
  })

  it('hash-password reads stdin and prints a hash that verifies', async () => {
    const result = await cli(['hash-password'], tmp.dir, 'correct horse\n')
    expect(result.code).to.equal(0)
    const hash = result.stdout.trim()
    expect(hash).to.match(/^scrypt\$/)
    expect(await verifyPassword('correct horse', hash)).to.equal(true)
    expect(await verifyPassword('wrong', hash)).to.equal(false)
  })

  it('run JOB: streams the log, exits 0 and leaves a listed snapshot; non-zero on failure', async () => {
    const file = await writeConfig(tmp.dir, [{ name: 'a' }, { name: 'broken', extra: '' }])
    const ok = await cli(['run', 'a', '--config', file], tmp.dir)
    expect(ok.code, ok.stderr).to.equal(0)
    expect(ok.stdout).to.match(/INFO {2}run started \(cli\)[\s\S]*committed a-.*\.tar\.gz[\s\S]*run succeeded/)
    expect(ok.stdout).to.not.include('\x1b[')
    const { snapshots } = await listCatalog(new LocalStorage('disk', join(tmp.dir, 'backups')), 'a')
    expect(snapshots).to.have.length(1)
    expect((await cli(['run', 'nope', '--config', file], tmp.dir)).code).to.equal(2)
    const { rm } = await import('node:fs/promises')
    await rm(join(tmp.dir, 'src'), { recursive: true })
    const failed = await cli(['run', 'broken', '--config', file], tmp.dir)
    expect(failed.code).to.equal(1)
    expect(failed.stdout).to.match(/ERROR run failed/)
  })

  it('kill -9 mid-run leaves no listed snapshot, and the next run cleans up and works', async () => {
    await writeFile(join(tmp.dir, 'src', 'slow.bin'), randomBytes(48 << 20))
    const file = await writeConfig(tmp.dir, [{ name: 'slow', extra: '    split: { chunkSize: 1048576 }\n' }])
    const run = start(['run', 'slow', '--config', file], tmp.dir)
    children.push(run.child)
    await waitFor(async () => (await filesBelow(join(tmp.dir, 'backups'))).length >= 3, 30_000, 'parts to be written')
    run.child.kill('SIGKILL')
    expect((await run.done).signal).to.equal('SIGKILL')
    const storage = new LocalStorage('disk', join(tmp.dir, 'backups'))
    const after = await listCatalog(storage, 'slow')
    expect(after.snapshots).to.deep.equal([])
    expect(after.orphans.length).to.be.greaterThan(0)

    const { rm } = await import('node:fs/promises')
    await rm(join(tmp.dir, 'src', 'slow.bin'))
    const next = await cli(['run', 'slow', '--config', file], tmp.dir)
    expect(next.code, next.stdout + next.stderr).to.equal(0)
    const jobLog = await readFile(join(tmp.dir, 'data', 'logs', 'jobs', 'slow.log'), 'utf8')
    expect(jobLog).to.match(/removed \d+ object\(s\) left by an unfinished run/)
    expect(jobLog).to.match(/the previous run did not finish/)
    const final = await listCatalog(storage, 'slow')
    expect(final.snapshots).to.have.length(1)
    expect(final.orphans).to.deep.equal([])
    const state = JSON.parse(await readFile(join(tmp.dir, 'data', 'state.json'), 'utf8'))
    expect(state.jobs.slow.run.status).to.equal('success')
  })

  it('a `run` beside a daemon engine: the job is busy there while it runs, and its result shows up after', async () => {
    await writeFile(join(tmp.dir, 'src', 'slow.bin'), randomBytes(32 << 20))
    const file = await writeConfig(tmp.dir, [{ name: 'slow' }])
    const engine = await createEngine(await loadConfig(file), { schedule: false })
    try {
      const run = start(['run', 'slow', '--config', file], tmp.dir)
      children.push(run.child)
      await waitFor(async () => (await filesBelow(join(tmp.dir, 'backups'))).length >= 1, 30_000, 'a write')
      expect(() => engine.run('slow', 'manual')).to.throw(JobBusyError)
      expect((await run.done).code).to.equal(0)
      // Another process's write reaches the engine's view within its state re-check (500 ms): wait for it.
      const job = await waitFor(() => (engine.getJob('slow').lastResult ? engine.getJob('slow') : undefined), 10_000, 'the run result')
      expect(job.lastResult?.success).to.equal(true)
      expect(job.lastRun).to.not.equal('')
      expect(await engine.listSnapshots('slow')).to.have.length(1)
    } finally {
      await engine.stop()
    }
  })

  it('SIGINT during run cancels it, removes its files and exits 130', async () => {
    await writeFile(join(tmp.dir, 'src', 'slow.bin'), randomBytes(48 << 20))
    const file = await writeConfig(tmp.dir, [{ name: 'slow' }])
    const run = start(['run', 'slow', '--config', file], tmp.dir)
    children.push(run.child)
    await waitFor(async () => (await filesBelow(join(tmp.dir, 'backups'))).length >= 1, 30_000, 'a write')
    run.child.kill('SIGINT')
    const result = await run.done
    expect(result.code).to.equal(130)
    expect(result.stdout).to.match(/run cancelled/)
    expect(await filesBelow(join(tmp.dir, 'backups'))).to.deep.equal([])
  })

  it('serves: prints the URL, answers HTTP, and exits 0 on SIGTERM', async () => {
    const file = await writeConfig(tmp.dir, [{ name: 'a' }], 'server: { address: "127.0.0.1:0" }\n')
    const daemon = start(['--config', file], tmp.dir)
    children.push(daemon.child)
    const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(daemon.output())?.[1], 20_000, 'the URL')
    const response = await fetch(`${url}/api/v1/jobs`)
    expect(response.status).to.equal(200)
    const body = (await response.json()) as { jobs: { name: string }[] }
    expect(body.jobs.map((j) => j.name)).to.deep.equal(['a'])
    daemon.child.kill('SIGTERM')
    const result = await daemon.done
    expect(result.code, result.stderr).to.equal(0)
  })
})
