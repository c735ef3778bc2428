import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createEngine, type DaemonEngine } from '../../src/engine/createEngine.js'
import { stripAnsi } from '../../src/logs/formatLine.js'
import { configIn, makeTree, sleep, tempDir, waitFor } from './helpers.js'

/** Every file below `dir` (relative), for "nothing left behind" checks. */
async function filesBelow(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
}

describe('engine: cancel, restart, logs, schedules', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  const engines: DaemonEngine[] = []
  beforeEach(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
  })
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.stop()
    await tmp.remove()
  })
  const start = async (...args: Parameters<typeof configIn> extends [string, ...infer R] ? R : never) => {
    const e = await createEngine(await configIn(tmp.dir, ...args))
    engines.push(e)
    return e
  }
  /** Random bytes gzip slowly (about 20 MB/s here): a run that lasts long enough to be interrupted. */
  const slowData = (mib: number) => writeFile(join(tmp.dir, 'src', 'slow.bin'), randomBytes(mib << 20))

  it('cancels a run mid-way and leaves nothing behind', async () => {
    await slowData(48)
    const e = await start([{ name: 'slow', extra: '    split: { chunkSize: 1048576 }\n' }])
    e.run('slow', 'manual')
    // Wait until parts are being written, so the cancel hits reading, compressing and writing.
    await waitFor(async () => (await filesBelow(join(tmp.dir, 'backups'))).length >= 2, 20_000, 'parts to be written')
    const { cancelledAt } = e.cancel('slow')
    expect(cancelledAt).to.be.a('string')
    expect(e.getJob('slow')).to.include({ status: 'running', cancelling: true })
    const info = await e.whenIdle('slow')
    expect(info).to.include({ status: 'cancelled', error: 'cancelled' })
    expect(e.getJob('slow')).to.deep.include({ status: 'idle', lastResult: { success: false, duration: info.duration, error: 'cancelled' } })
    expect(await filesBelow(join(tmp.dir, 'backups'))).to.deep.equal([])
    expect(await e.listSnapshots('slow')).to.deep.equal([])
    expect(e.logs.tail({ kind: 'job', job: 'slow' }, 10).map(stripAnsi).join('\n')).to.match(/WARN {2}run cancelled/)
  })

  it('stop() cancels runs in flight cleanly and waits for them', async () => {
    await slowData(32)
    const e = await start([{ name: 'slow' }])
    e.run('slow', 'manual')
    await waitFor(async () => (await filesBelow(join(tmp.dir, 'backups'))).length >= 1, 20_000, 'a write')
    await e.stop()
    expect(e.getJob('slow').status).to.equal('idle')
    expect(e.runInfo('slow').status).to.equal('cancelled')
    expect(await filesBelow(join(tmp.dir, 'backups'))).to.deep.equal([])
  })

  it('keeps state and logs for a new engine on the same dataDir', async () => {
    const first = await start([{ name: 'a' }])
    first.run('a', 'manual')
    const info = await first.whenIdle('a')
    const before = first.getJob('a')
    const lines = first.logs.tail({ kind: 'job', job: 'a' }, 100)
    await first.stop()
    const state = JSON.parse(await readFile(join(tmp.dir, 'data', 'state.json'), 'utf8'))
    expect(state.jobs.a.lastRun).to.equal(before.lastRun)

    const second = await start([{ name: 'a' }])
    expect(second.getJob('a')).to.deep.include({ lastRun: before.lastRun, lastResult: before.lastResult })
    expect(second.runInfo('a')).to.deep.equal(info)
    // Read back from the file, which holds plain text.
    expect(second.logs.tail({ kind: 'job', job: 'a' }, 100).slice(0, lines.length)).to.deep.equal(lines.map(stripAnsi))
    expect(second.logs.tail({ kind: 'system' }, 1000).join('\n')).to.include('engine stopped')
  })

  it('marks a run that a dead process left "running" as failed', async () => {
    const { mkdir } = await import('node:fs/promises')
    await mkdir(join(tmp.dir, 'data'), { recursive: true })
    const running = { startTime: '2026-01-01T00:00:00.000Z', endTime: '', duration: '', error: '', status: 'running' }
    await writeFile(
      join(tmp.dir, 'data', 'state.json'),
      JSON.stringify({ version: 1, jobs: { a: { lastResult: { success: true, duration: '1s', error: '' }, lastRun: running.startTime, run: running } } }),
    )
    const e = await start([{ name: 'a' }])
    expect(e.runInfo('a').status).to.equal('failed')
    expect(e.getJob('a').lastResult).to.include({ success: false })
    expect(e.getJob('a').lastResult?.error).to.match(/interrupted/)
  })

  it('bounds logs by logLimits in memory and on disk, across restarts', async () => {
    const top = 'logLimits: { jobLogs: 5, systemLogs: 7 }\n'
    const e = await start([{ name: 'a' }], top)
    for (let i = 0; i < 3; i++) {
      e.run('a', 'manual')
      await e.whenIdle('a')
    }
    for (let i = 0; i < 20; i++) e.logs.append({ kind: 'system' }, `server line ${i}`)
    const jobLines = e.logs.tail({ kind: 'job', job: 'a' }, 50000)
    expect(jobLines).to.have.length(5)
    expect(stripAnsi(jobLines[4]!)).to.match(/run succeeded/)
    expect(jobLines[4]).to.include('\x1b[32m')
    expect(
      e.logs
        .tail({ kind: 'system' }, 3)
        .map(stripAnsi)
        .map((l) => l.slice(25)),
    ).to.deep.equal(['INFO  server line 17', 'INFO  server line 18', 'INFO  server line 19'])
    expect(e.logs.tail({ kind: 'system' }, 100)).to.have.length(7)
    await e.stop()
    const onDisk = (await readFile(join(tmp.dir, 'data', 'logs', 'jobs', 'a.log'), 'utf8')).trim().split('\n')
    expect(onDisk.length).to.be.greaterThan(5) // the file is bounded by size (logs.maxSizeMB rotation), not by lines
    // The file holds plain text: read back after the restart, the lines have no colours (issue 38).
    expect(onDisk.join('\n')).not.to.include('\x1b')
    const again = await start([{ name: 'a' }], top)
    expect(again.logs.tail({ kind: 'job', job: 'a' }, 100)).to.deep.equal(jobLines.map(stripAnsi))
    expect(again.logs.enabled({ kind: 'job', job: 'nope' })).to.equal(false)
  })

  it('sends live lines to subscribers and keeps nothing for a log switched off', async () => {
    const e = await start([{ name: 'a' }], 'logs: { perJob: false }\n')
    const seen: string[] = []
    const unsubscribe = e.logs.subscribe({ kind: 'job', job: 'a' }, (line) => seen.push(line))
    e.run('a', 'manual')
    await e.whenIdle('a')
    unsubscribe()
    expect(seen.map(stripAnsi).join('\n')).to.match(/run started[\s\S]*run succeeded/)
    expect(e.logs.enabled({ kind: 'job', job: 'a' })).to.equal(false)
    expect(e.logs.tail({ kind: 'job', job: 'a' }, 100)).to.deep.equal([])
  })

  it('fires a schedule and never overlaps runs of one job', async () => {
    await slowData(24)
    const e = await start([{ name: 'tick', extra: '    schedule: "* * * * * *"\n    retention: { last: 1 }\n' }])
    expect(Date.parse(e.getJob('tick').nextRun!)).to.be.greaterThan(Date.now() - 1000)
    const events: string[] = []
    e.logs.subscribe({ kind: 'job', job: 'tick' }, (line) => {
      const plain = stripAnsi(line)
      if (/run started/.test(plain)) events.push('start')
      if (/run (succeeded|failed|cancelled)/.test(plain)) events.push('end')
    })
    await waitFor(() => events.filter((x) => x === 'end').length >= 2, 40_000, 'two scheduled runs')
    await e.stop()
    expect(events.join(',')).to.match(/^(start,end,)+(start,end)?/)
    for (let i = 0; i < events.length; i++) expect(events[i], events.join(',')).to.equal(i % 2 === 0 ? 'start' : 'end')
    expect(e.getJob('tick').lastResult?.success).to.equal(true)
    // A manual run while a scheduled one goes on is refused rather than run beside it.
    await sleep(0)
  })
})
