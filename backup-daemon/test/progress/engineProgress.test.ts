import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createEngine, type DaemonEngine } from '../../src/engine/createEngine.js'
import type { RunRecord } from '../../src/runs/history.js'
import type { RunProgress } from '../../src/runs/progress.js'
import { configIn, tempDir, waitFor } from '../engine/helpers.js'

describe('progress: the engine (a run held in its beforeScript on a FIFO)', function () {
  this.timeout(60_000)
  let temp: Awaited<ReturnType<typeof tempDir>>
  let engine: DaemonEngine | undefined
  const treeBytes = 1000 + 200_000 + 5

  beforeEach(async () => {
    temp = await tempDir('engine-progress-')
    await mkdir(join(temp.dir, 'src', 'sub'), { recursive: true })
    await writeFile(join(temp.dir, 'src', 'a.txt'), 'a'.repeat(1000))
    await writeFile(join(temp.dir, 'src', 'sub', 'b.bin'), Buffer.alloc(200_000, 7))
    await writeFile(join(temp.dir, 'src', 'sub', 'c'), 'ccccc')
    await writeFile(join(temp.dir, 'src', 'skip.tmp'), 'excluded by the job')
    execFileSync('mkfifo', [join(temp.dir, 'go')])
  })
  afterEach(async () => {
    await engine?.stop()
    engine = undefined
    await temp.remove()
  })

  /** Lets the held beforeScript go on (opening the FIFO for writing waits for the script's read). */
  const release = () => writeFileSync(join(temp.dir, 'go'), 'go\n')

  it('shows the hooks phase, counts a local tree for the first run and uses the previous run after; the record is in the history', async () => {
    const config = await configIn(temp.dir, [{ name: 'held', compression: 'tar', extra: `    beforeScript: read line < ${join(temp.dir, 'go')}\n` }])
    engine = await createEngine(config, { schedule: false, persistLogs: false })
    const seen: RunProgress[] = []
    const ended: RunRecord[] = []
    const unwatch = engine.watchRuns('held', { progress: (p) => seen.push(p), end: (r) => ended.push(r) })
    expect(engine.progress('held')).to.equal(undefined)

    engine.run('held', 'schedule')
    // The tree is counted beside the held run (files only, the job's excludes applied).
    const counted = await waitFor(() => engine!.progress('held')?.totalBytes, 10_000, 'the tree count')
    expect(counted).to.equal(treeBytes)
    expect(engine.progress('held')).to.include({ kind: 'backup', phase: 'hooks', bytesRead: 0, percent: 0 })
    expect(engine.getJob('held').progress).to.include({ phase: 'hooks', totalBytes: treeBytes })
    release()
    await engine.whenIdle('held')
    expect(ended).to.have.length(1)
    expect(ended[0]).to.include({ trigger: 'schedule', result: 'success', bytesRead: treeBytes, filesRead: 3 })
    expect(engine.getJob('held')).not.to.have.property('progress')
    expect(engine.history.list('held')).to.deep.equal(ended)
    expect(seen.every((p) => p.kind === 'backup')).to.equal(true)

    engine.run('held', 'manual')
    // The second run's estimate is the first run's bytes read, there at once; the hooks phase follows once
    // the run has passed its start (it first waits for the start-up cleanup of leftovers).
    expect(engine.progress('held')).to.include({ totalBytes: treeBytes })
    await waitFor(() => engine!.progress('held')?.phase === 'hooks', 10_000, 'the hooks phase')
    release()
    await engine.whenIdle('held')
    unwatch()
    expect(engine.history.list('held').map((r) => r.trigger)).to.deep.equal(['manual', 'schedule'])
  })

  it('a cancelled run is recorded as cancelled with its error', async () => {
    const config = await configIn(temp.dir, [{ name: 'held', compression: 'tar', extra: `    beforeScript: read line < ${join(temp.dir, 'go')}\n` }])
    engine = await createEngine(config, { schedule: false, persistLogs: false })
    engine.run('held', 'manual')
    await waitFor(() => engine!.progress('held')?.phase === 'hooks')
    engine.cancel('held')
    await engine.whenIdle('held')
    const [record] = engine.history.list('held')
    expect(record).to.include({ result: 'cancelled', error: 'cancelled', bytesRead: 0 })
    expect(record).not.to.have.property('snapshot')
  })
})
