import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buffer } from 'node:stream/consumers'
import { createEngine, type DaemonEngine } from '../../src/engine/createEngine.js'
import { JobBusyError, JobNotFoundError, NoRunInFlightError, SnapshotNotFoundError, EngineStoppingError } from '../../src/runs/errors.js'
import type { SnapshotDownload } from '../../src/engine/types.js'
import { configIn, makeTree, tempDir } from './helpers.js'

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')
const download = async (d: SnapshotDownload) => {
  if (d.kind !== 'stream') throw new Error('expected a stream')
  return buffer(await d.open())
}

describe('engine: runs, snapshots, split, retention', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let engine: DaemonEngine | undefined
  beforeEach(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
  })
  afterEach(async () => {
    await engine?.stop()
    engine = undefined
    await tmp.remove()
  })

  const start = async (...args: Parameters<typeof configIn> extends [string, ...infer R] ? R : never) => {
    engine = await createEngine(await configIn(tmp.dir, ...args))
    return engine
  }
  const runToEnd = async (e: DaemonEngine, job: string) => {
    e.run(job, 'manual')
    return e.whenIdle(job)
  }

  it('runs a job into a listed snapshot whose manifest holds the right sha256, and downloads it', async () => {
    const e = await start([{ name: 'whole' }])
    const { startedAt } = e.run('whole', 'manual')
    expect(e.getJob('whole').status).to.equal('running')
    expect(() => e.run('whole', 'manual')).to.throw(JobBusyError)
    const info = await e.whenIdle('whole')
    expect(info).to.include({ status: 'success', error: '', startTime: startedAt })
    const job = e.getJob('whole')
    expect(job).to.include({ status: 'idle', lastRun: startedAt, sourcesCount: 1, storagesCount: 1 })
    expect(job.lastResult?.success).to.equal(true)
    const [snapshot, ...rest] = await e.listSnapshots('whole')
    expect(rest).to.have.length(0)
    expect(snapshot).to.include({ jobName: 'whole', storageType: 'local', isSplit: false, partsCount: 1, fullDownloadSupported: true })
    expect(snapshot!.name).to.match(/^whole-.*\.tar\.gz$/)
    const bytes = await readFile(join(tmp.dir, 'backups', snapshot!.path))
    expect(snapshot!.size).to.equal(bytes.length)
    const manifest = JSON.parse(await readFile(join(tmp.dir, 'backups', 'whole', `${snapshot!.name}.manifest.json`), 'utf8'))
    expect(manifest).to.include({ job: 'whole', name: snapshot!.name, compression: 'tar.gz', size: bytes.length, sha256: sha256(bytes) })
    expect(manifest.parts).to.deep.equal([{ key: snapshot!.path, size: bytes.length, sha256: sha256(bytes) }])
    const d = await e.openSnapshot('whole', snapshot!.name)
    expect(d).to.include({ kind: 'stream', filename: snapshot!.name, size: bytes.length, contentType: 'application/gzip' })
    expect(await download(d)).to.deep.equal(bytes)
    for (const bad of ['nope.tar.gz', '../../etc/passwd', `${snapshot!.name}.manifest.json`]) {
      await e.openSnapshot('whole', bad).then(
        () => expect.fail(bad),
        (err: unknown) => expect(err).to.be.instanceOf(SnapshotNotFoundError),
      )
    }
  })

  it('splits into parts whose reassembled bytes equal the unsplit archive; full and part downloads', async () => {
    const e = await start([{ name: 'whole' }, { name: 'split', extra: '    split: { chunkSize: 50000 }\n' }])
    await runToEnd(e, 'whole')
    await runToEnd(e, 'split')
    const [whole] = await e.listSnapshots('whole')
    const [set] = await e.listSnapshots('split')
    const wholeBytes = await readFile(join(tmp.dir, 'backups', whole!.path))
    expect(set).to.include({ isSplit: true, size: wholeBytes.length, partsCount: Math.ceil(wholeBytes.length / 50000) })
    expect(set!.path).to.equal(`split/${set!.name}.parts-${set!.partsCount}-${set!.size}`)
    const manifest = JSON.parse(await readFile(join(tmp.dir, 'backups', 'split', `${set!.name}.manifest.json`), 'utf8'))
    const parts: Buffer[] = []
    for (const part of manifest.parts as { key: string; size: number; sha256: string }[]) {
      const data = await readFile(join(tmp.dir, 'backups', part.key))
      expect(sha256(data)).to.equal(part.sha256)
      expect(data.length).to.equal(part.size)
      parts.push(data)
    }
    expect(Buffer.concat(parts)).to.deep.equal(wholeBytes)
    expect(manifest.sha256).to.equal(sha256(wholeBytes))
    const full = await e.openSnapshot('split', set!.name)
    expect(full).to.include({ kind: 'stream', size: wholeBytes.length })
    expect(await download(full)).to.deep.equal(wholeBytes)
    const secondPart = (manifest.parts[1].key as string).split('/').pop()!
    expect(await download(await e.openSnapshot('split', secondPart))).to.deep.equal(parts[1])
  })

  it('keeps the newest retention.last snapshots, a split set counting as one', async () => {
    const e = await start([{ name: 'kept', extra: '    split: { chunkSize: 40000 }\n    retention: { last: 2 }\n' }])
    const names: string[] = []
    for (let i = 0; i < 4; i++) {
      await runToEnd(e, 'kept')
      names.push((await e.listSnapshots('kept'))[0]!.name)
    }
    const listed = await e.listSnapshots('kept')
    expect(listed.map((s) => s.name)).to.deep.equal([names[3], names[2]])
    const { readdir } = await import('node:fs/promises')
    expect((await readdir(join(tmp.dir, 'backups', 'kept'))).sort()).to.have.length(4)
  })

  it('records a failed run and lists nothing for it', async () => {
    const e = await start([{ name: 'broken' }])
    const { rm } = await import('node:fs/promises')
    await rm(join(tmp.dir, 'src'), { recursive: true })
    const info = await runToEnd(e, 'broken')
    expect(info.status).to.equal('failed')
    expect(info.error).to.match(/ENOENT|no such file/)
    expect(e.getJob('broken').lastResult).to.include({ success: false })
    expect(await e.listSnapshots('broken')).to.deep.equal([])
    expect(e.logs.tail({ kind: 'job', job: 'broken' }, 100).join('\n')).to.match(/run failed/)
    expect(e.logs.tail({ kind: 'system' }, 100).join('\n')).to.match(/\[broken\] run failed/)
  })

  it('answers unknown jobs, cancels without a run and runs after stop with typed errors', async () => {
    const e = await start([{ name: 'a' }])
    expect(() => e.getJob('nope')).to.throw(JobNotFoundError)
    expect(() => e.run('nope', 'manual')).to.throw(JobNotFoundError)
    expect(() => e.cancel('a')).to.throw(NoRunInFlightError)
    await e.listSnapshots('nope').then(
      () => expect.fail(),
      (err: unknown) => expect(err).to.be.instanceOf(JobNotFoundError),
    )
    await e.stop()
    expect(() => e.run('a', 'manual')).to.throw(EngineStoppingError)
  })

  it('redacts secrets in the job config', async () => {
    const e = await start([{ name: 'a' }])
    const config = e.jobConfig('a') as { sources: { path: string }[]; name: string }
    expect(config.name).to.equal('a')
    expect(config.sources[0]!.path).to.equal(join(tmp.dir, 'src'))
  })
})
