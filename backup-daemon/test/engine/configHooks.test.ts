/**
 * beforeScript / afterScript through real `/bin/sh` processes around real runs of the engine: output in
 * the job log, a failing beforeScript failing the run with nothing written, afterScript after success,
 * failure and cancel, and a cancel killing a running script (and what it started).
 */
import { expect } from 'chai'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createEngine } from '../../src/engine/createEngine.js'
import { runHook } from '../../src/engine/runHooks.js'
import { configIn, makeTree, tempDir, waitFor } from './helpers.js'

/** YAML block scalars for a job's hooks. */
const hooks = (before: string, after: string) =>
  `    beforeScript: |\n${before
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n')}\n    afterScript: |\n${after
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n')}\n`

describe('engine: beforeScript and afterScript', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
  })
  afterEach(() => tmp.remove())

  const engineFor = async (extra: string) => createEngine(await configIn(tmp.dir, [{ name: 'job', extra }]), { schedule: false })
  const storedFiles = async () => (existsSync(join(tmp.dir, 'backups')) ? readdir(join(tmp.dir, 'backups'), { recursive: true }) : [])

  it('runs both around a successful run, their output in the job log, the job name in their environment', async () => {
    const marks = join(tmp.dir, 'marks')
    const engine = await engineFor(
      hooks(
        `echo "before for $BACKUP_DAEMON_JOB" >> ${marks}\necho visible-stdout\necho visible-stderr >&2`,
        `ls ${join(tmp.dir, 'backups/job')} | grep -c manifest >> ${marks}\necho after-done`,
      ),
    )
    engine.run('job', 'manual')
    expect((await engine.whenIdle('job')).status).to.equal('success')
    // afterScript ran after the snapshot was committed: it saw its manifest.
    expect(await readFile(marks, 'utf8')).to.equal('before for job\n1\n')
    const log = engine.logs.tail({ kind: 'job', job: 'job' }, 100).join('\n')
    expect(log).to.match(/INFO.*beforeScript: visible-stdout/)
    expect(log).to.match(/WARN.*beforeScript: visible-stderr/)
    expect(log).to.include('afterScript: after-done')
    expect(engine.jobConfig('job')).to.include({ hasBeforeScript: true, hasAfterScript: true })
    await engine.stop()
  })

  it('a failing beforeScript fails the run before anything is written; afterScript still runs', async () => {
    const marks = join(tmp.dir, 'marks')
    const engine = await engineFor(hooks('echo stopping app\nexit 3', `echo after >> ${marks}`))
    engine.run('job', 'manual')
    const info = await engine.whenIdle('job')
    expect(info.status).to.equal('failed')
    expect(info.error).to.equal('beforeScript failed: exit code 3')
    expect(await storedFiles()).to.deep.equal([])
    expect(await readFile(marks, 'utf8')).to.equal('after\n')
    await engine.stop()
  })

  it('afterScript runs after a failed run, and its own failure is logged without changing the result', async () => {
    const marks = join(tmp.dir, 'marks')
    const config = await configIn(tmp.dir, [{ name: 'job', extra: hooks('true', `echo after-failure >> ${marks}\nexit 1`) }])
    ;(config.jobs[0]!.sources[0] as { path: string }).path = join(tmp.dir, 'missing')
    const engine = await createEngine(config, { schedule: false })
    engine.run('job', 'manual')
    const info = await engine.whenIdle('job')
    expect(info.status).to.equal('failed')
    expect(info.error).to.include('missing')
    expect(await readFile(marks, 'utf8')).to.equal('after-failure\n')
    expect(engine.logs.tail({ kind: 'job', job: 'job' }, 100).join('\n')).to.match(/ERROR.*afterScript failed: exit code 1/)
    await engine.stop()
  })

  it('cancel kills a running beforeScript and the process it started; afterScript runs after the cancel', async () => {
    const pidFile = join(tmp.dir, 'child.pid')
    const marks = join(tmp.dir, 'marks')
    const engine = await engineFor(hooks(`sleep 300 &\necho $! > ${pidFile}\nwait`, `echo after-cancel >> ${marks}`))
    engine.run('job', 'manual')
    const pid = Number(await waitFor(async () => (existsSync(pidFile) ? (await readFile(pidFile, 'utf8')).trim() : ''), 10_000, 'the script to start'))
    engine.cancel('job')
    const info = await engine.whenIdle('job')
    expect(info.status).to.equal('cancelled')
    expect(await readFile(marks, 'utf8')).to.equal('after-cancel\n')
    // The `sleep` the script started is gone too (its process group was killed).
    await waitFor(
      () => {
        try {
          process.kill(pid, 0)
          return false
        } catch {
          return true
        }
      },
      10_000,
      'the sleep to end',
    )
    expect(await storedFiles()).to.deep.equal([])
    await engine.stop()
  })

  it('runHook: empty scripts are skipped, a script that cannot even run fails', async () => {
    const lines: string[] = []
    const log = (_level: string, message: string) => lines.push(message)
    await runHook('beforeScript', '  \n', { signal: new AbortController().signal, log })
    expect(lines).to.deep.equal([])
    const err = await runHook('beforeScript', 'exec /nonexistent/binary', { signal: new AbortController().signal, log }).then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(err?.message).to.equal('beforeScript failed: exit code 127')
    expect(lines.join('\n')).to.include('/nonexistent/binary')
  })
})
