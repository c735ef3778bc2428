/**
 * Log rotation on real files: by size (the rotated file gzipped, its lines intact), pruning by count
 * and by the age in the rotated file's name, modes 0600/0700, a crash's leftovers cleaned, and the
 * engine's logs rotating under `logs.maxSizeMB`.
 */
import { expect } from 'chai'
import { existsSync, statSync } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { createEngine } from '../../src/engine/createEngine.js'
import { LogFile } from '../../src/logs/LogFile.js'
import { configIn, makeTree, tempDir } from '../engine/helpers.js'

const line = (i: number) => `2026-11-23T21:00:00.000Z INFO  line ${String(i).padStart(6, '0')} ${'x'.repeat(60)}`

describe('logs: rotation', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())

  const backupsOf = async (folder: string, stem = 'system') => (await readdir(folder)).filter((n) => n.startsWith(`${stem}-`)).sort()

  it('rotates by size: the full file renamed with its UTC time and gzipped, a new file started, nothing lost', async () => {
    const folder = join(tmp.dir, 'logs')
    const path = join(folder, 'system.log')
    const log = new LogFile(path, 100, { maxBytes: 4096, maxBackups: 0, maxAgeDays: 0, compress: true })
    const lines = Array.from({ length: 150 }, (_, i) => line(i))
    for (const l of lines) log.append(l)
    await log.settled()
    log.close()
    const backups = await backupsOf(folder)
    expect(backups.length).to.be.within(2, 4)
    for (const name of backups) expect(name).to.match(/^system-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/)
    // Every line is in exactly one file, in order: the rotated ones (oldest first) then the live one.
    const texts = await Promise.all(backups.map(async (name) => gunzipSync(await readFile(join(folder, name))).toString()))
    const all = [...texts, await readFile(path, 'utf8')].join('').trim().split('\n')
    expect(all).to.deep.equal(lines)
    for (const name of backups) expect(statSync(join(folder, name)).size).to.be.below(4096)
    expect(statSync(path).size).to.be.at.most(4096)
    expect(statSync(path).mode & 0o777).to.equal(0o600)
    for (const name of backups) expect(statSync(join(folder, name)).mode & 0o777).to.equal(0o600)
    expect(statSync(folder).mode & 0o777).to.equal(0o700)
    // The in-memory tail does not care about rotation.
    expect(log.tail(3)).to.deep.equal(lines.slice(-3))
  })

  it('names rotations in the order they happened when the clock stands still or steps back', async () => {
    const folder = join(tmp.dir, 'logs')
    const path = join(folder, 'system.log')
    const realNow = Date.now
    // Every rotation in one millisecond, an hour behind the wall clock, then one more step back.
    let clock = realNow() - 3600_000
    Date.now = () => clock
    const lines = Array.from({ length: 120 }, (_, i) => line(i))
    try {
      const log = new LogFile(path, 10, { maxBytes: 1024, maxBackups: 0, maxAgeDays: 0, compress: false })
      for (const [i, l] of lines.entries()) {
        if (i === 60) clock -= 60_000
        log.append(l)
      }
      await log.settled()
      log.close()
    } finally {
      Date.now = realNow
    }
    const backups = await backupsOf(folder)
    expect(backups.length).to.be.greaterThan(5)
    const texts = await Promise.all(backups.map((name) => readFile(join(folder, name), 'utf8')))
    expect([...texts, await readFile(path, 'utf8')].join('').trim().split('\n')).to.deep.equal(lines)
  })

  it('keeps maxBackups rotated files, the newest; compress: false leaves them plain', async () => {
    const folder = join(tmp.dir, 'logs')
    const log = new LogFile(join(folder, 'system.log'), 10, { maxBytes: 1024, maxBackups: 2, maxAgeDays: 0, compress: false })
    const lines = Array.from({ length: 120 }, (_, i) => line(i))
    for (const l of lines) log.append(l)
    await log.settled()
    log.close()
    const backups = await backupsOf(folder)
    expect(backups).to.have.length(2)
    for (const name of backups) expect(name).to.match(/\.log$/)
    // The two kept are the two newest: their lines come right before the live file's.
    const live = (await readFile(join(folder, 'system.log'), 'utf8')).trim().split('\n')
    const kept = (await Promise.all(backups.map((n) => readFile(join(folder, n), 'utf8')))).join('').trim().split('\n')
    expect([...kept, ...live]).to.deep.equal(lines.slice(lines.length - kept.length - live.length))
  })

  it('prunes rotated files older than maxAgeDays by the time in their name, and cleans what a crash left', async () => {
    const folder = join(tmp.dir, 'logs', 'jobs')
    const { mkdir } = await import('node:fs/promises')
    await mkdir(folder, { recursive: true })
    const old = 'nightly-2020-01-01T00-00-00.000.log.gz'
    const recent = `nightly-${new Date(Date.now() - 2 * 86_400_000).toISOString().replace(/:/g, '-').replace(/Z$/, '')}.log`
    const halfGzipped = `${recent}.gz.tmp`
    const other = 'other-2020-01-01T00-00-00.000.log.gz'
    for (const name of [old, recent, halfGzipped, other]) await writeFile(join(folder, name), 'old line\n')
    const log = new LogFile(join(folder, 'nightly.log'), 10, { maxBytes: 0, maxBackups: 0, maxAgeDays: 30, compress: true })
    await log.settled()
    log.close()
    // The 2020 one is gone, the recent one is kept and gzipped (the crash's half-written .gz.tmp removed), other jobs' files untouched.
    expect((await readdir(folder)).sort()).to.deep.equal([other, `${recent}.gz`, 'nightly.log'].sort())
    expect(gunzipSync(await readFile(join(folder, `${recent}.gz`))).toString()).to.equal('old line\n')
  })

  it('maxBytes 0: no rotation, the file grows (an external tool may own rotation); the tail is read back on start', async () => {
    const path = join(tmp.dir, 'logs', 'system.log')
    const log = new LogFile(path, 5, { maxBytes: 0, maxBackups: 0, maxAgeDays: 0, compress: true })
    const lines = Array.from({ length: 200 }, (_, i) => line(i))
    for (const l of lines) log.append(l)
    await log.settled()
    log.close()
    expect(await backupsOf(join(tmp.dir, 'logs'))).to.deep.equal([])
    expect((await readFile(path, 'utf8')).trim().split('\n')).to.deep.equal(lines)
    const again = new LogFile(path, 5)
    expect(again.tail(100)).to.deep.equal(lines.slice(-5))
    again.close()
  })

  it('the engine rotates the system and job logs under logs.maxSizeMB, keeping maxBackups', async () => {
    await makeTree(join(tmp.dir, 'src'))
    const config = await configIn(
      tmp.dir,
      [{ name: 'job' }],
      'logs: { maxSizeMB: 1, maxBackups: 1, maxAgeDays: 0, compress: true }\nlogLimits: { jobLogs: 50, systemLogs: 50 }\n',
    )
    const engine = await createEngine(config, { schedule: false })
    // A bit over 2 MiB of system lines: two rotations, one backup kept.
    const filler = 'y'.repeat(1000)
    for (let i = 0; i < 2200; i++) engine.logs.append({ kind: 'system' }, `filler ${i} ${filler}`)
    engine.run('job', 'manual')
    expect((await engine.whenIdle('job')).status).to.equal('success')
    await engine.logs.settled()
    const folder = join(tmp.dir, 'data', 'logs')
    const backups = await backupsOf(folder)
    expect(backups).to.have.length(1)
    expect(backups[0]).to.match(/\.log\.gz$/)
    const rotated = gunzipSync(await readFile(join(folder, backups[0]!))).toString()
    expect(rotated.length).to.be.within(1048576 - 2000, 1048576)
    expect(rotated).to.match(/filler \d+ y+\n$/)
    expect(statSync(join(folder, 'system.log')).size).to.be.below(1048576)
    expect(existsSync(join(folder, 'jobs', 'job.log'))).to.equal(true)
    expect(engine.logs.tail({ kind: 'system' }, 1000)).to.have.length(50)
    await engine.stop()
  })
})
