import { expect } from 'chai'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createDaemon, type Daemon } from '../../src/daemon/createDaemon.js'
import { JobBusyError } from '../../src/runs/errors.js'
import { TaskRefusedError } from '../../src/tasks/TaskRefusedError.js'
import { memoryRunHistory } from '../../src/tasks/memoryRunHistory.js'
import { configIn, makeTree, tempDir } from '../engine/helpers.js'

describe('tasks: beside the engine in the composition root (one RunHistory, one log, the lock against backups both ways)', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let daemon: Daemon | undefined
  before(async () => {
    tmp = await tempDir('bd-engine-tasks-')
    await makeTree(join(tmp.dir, 'src'))
    await mkdir(join(tmp.dir, 'restores'))
  })
  after(async () => {
    await daemon?.stop()
    await tmp.remove()
  })

  it('records the backup, verify and restore in the history it is given, logs them, and refuses a backup while one runs and a task while a backup runs', async () => {
    const history = memoryRunHistory()
    const config = await configIn(tmp.dir, [{ name: 'j' }], `restore: { roots: [${join(tmp.dir, 'restores')}] }\n`)
    daemon = await createDaemon(config, { schedule: false, persistLogs: false, history })
    const { engine, tasks } = daemon
    engine.run('j', 'manual')
    expect((await engine.whenIdle('j')).status).to.equal('success')
    const [snapshot] = await engine.listSnapshots('j')
    // The other way round: a task is refused while the job's backup runs (a second run, ended before the tasks below).
    engine.run('j', 'manual')
    const refused = await tasks.verify('j', snapshot!.name).catch((err: unknown) => err)
    expect(refused).to.be.instanceOf(TaskRefusedError).and.include({ status: 409 })
    expect((await engine.whenIdle('j')).status).to.equal('success')

    const verify = await tasks.verify('j', snapshot!.name)
    expect(() => engine.run('j', 'manual')).to.throw(JobBusyError)
    await tasks.whenDone('j')
    expect(tasks.current('j')).to.include({ id: verify.id, status: 'success' })

    const target = join(tmp.dir, 'restores', 'copy')
    await tasks.restore('j', snapshot!.name, { kind: 'files', path: target })
    await tasks.whenDone('j')
    expect(tasks.current('j')!.status).to.equal('success')
    expect(await readFile(join(target, 'files', 'readme.txt'), 'utf8')).to.equal('hello backup\n'.repeat(1000))

    const runs = history.list('j')
    expect(runs.map((r) => [r.kind, r.result, r.trigger, r.snapshot])).to.deep.equal([
      ['restore', 'success', 'manual', snapshot!.name],
      ['verify', 'success', 'manual', snapshot!.name],
      ['backup', 'success', 'manual', runs[2]!.snapshot],
      // The backup that made the snapshot is in the same history: one record per run, whatever its kind.
      ['backup', 'success', 'manual', snapshot!.name],
    ])
    expect(runs[0]!.target).to.equal(target)
    // A folder restore reads the snapshot once: the read is the check (each part's sha256 as it comes).
    expect(runs[0]!.bytesRead).to.equal(snapshot!.size)
    expect(runs[0]!.bytesWritten).to.be.greaterThan(300_000)
    const lines = engine.logs.tail({ kind: 'job', job: 'j' }, 100).join('\n')
    expect(lines).to.include('[verify] succeeded').and.include('[restore] succeeded')
  })
})
