/**
 * @module test/support/runRepositorySuite
 * The contract of the snapshot repository layer (`src/repository/types.ts`), as the engine, the tasks
 * and the CLI rely on it through `JobRepository`: a written snapshot is listed, downloadable, readable as
 * tar and verifiable; forget removes it for good; an aborted write leaves nothing listed; what a killed
 * run left is not listed, is removed by `removeLeftovers`, and the next write succeeds. Every repository
 * kind runs it (the archive kind on a local and a remote storage; restic repositories next, issue 27).
 */
import { expect } from 'chai'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { forEachTarEntry } from '../../src/tar/forEachTarEntry.js'
import type { JobConfig } from '../../src/config/types.js'
import type { JobRepository } from '../../src/repository/jobRepository.js'
import type { WriteRun } from '../../src/repository/types.js'
import { SnapshotNotFoundError } from '../../src/runs/errors.js'
import { isRecordEntry, parseRecord, type SnapshotRecord } from '../../src/tar/snapshotRecord.js'
import { oneByOne } from '../../src/sources/support/oneByOne.js'
import type { Source, SourceEntry } from '../../src/sources/types.js'

export interface RepositorySuiteOptions {
  /** A job config for job `name` whose snapshots go to a fresh place of the kind under test. */
  newJob(name: string): Promise<JobConfig>
  /** The job's repository (a fresh object each call reads the same place). */
  open(job: JobConfig): JobRepository
  /** Leaves in the job's place what a run killed mid-write (kill -9) leaves there. */
  leaveLeftovers(job: JobConfig): Promise<void>
}

/** A file source of fixed content; `stall` names a file whose read aborts `controller` half-way and then never ends. */
function memorySource(files: Record<string, Buffer>, stall?: { file: string; controller: AbortController }): Source {
  return {
    type: 'memory',
    name: 'files',
    batches: () => oneByOne(entriesOf(files, stall)),
  }
}

async function* entriesOf(files: Record<string, Buffer>, stall?: { file: string; controller: AbortController }): AsyncGenerator<SourceEntry> {
  for (const [name, data] of Object.entries(files)) {
    yield {
      name: `files/${name}`,
      type: 'file',
      mode: 0o644,
      mtime: new Date('2026-01-01T00:00:00Z'),
      size: data.length,
      open: () =>
        stall?.file === name
          ? Readable.from(
              (async function* () {
                yield data.subarray(0, data.length >> 1)
                stall.controller.abort(new Error('stopped mid-write'))
                await new Promise(() => {})
              })(),
            )
          : Readable.from([data]),
    }
  }
}

const contents = {
  'a.txt': Buffer.from('alpha\n'.repeat(2000)),
  'b.bin': Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 251)),
}

function runOf(job: JobConfig, createdAt: Date, files: Record<string, Buffer> = contents, stall?: { file: string; controller: AbortController }): WriteRun {
  const signal = stall?.controller.signal ?? new AbortController().signal
  return {
    job,
    createSources: () => [memorySource(files, stall)],
    createdAt,
    signal,
    log: () => {},
    progress: { phase: () => {}, writtenTo: () => ({ bytesWritten: 0 }), folderRead: () => {} },
  }
}

/** What `promise` rejected with (undefined when it resolved). */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  )

/** The files of a tar stream, by name. */
/** The tar's files, and the snapshot record (`tar/snapshotRecord.ts`) when the kind writes one. */
async function tarFiles(tar: Readable): Promise<{ files: Record<string, Buffer>; record?: SnapshotRecord }> {
  const files: Record<string, Buffer> = {}
  let record: SnapshotRecord | undefined
  await forEachTarEntry(tar, async (header, stream) => {
    const data = await buffer(stream)
    if (isRecordEntry(header.name)) record = parseRecord(data)
    else if (header.type === 'file') files[header.name] = data
  })
  return { files, ...(record && { record }) }
}

export function runRepositorySuite(options: RepositorySuiteOptions): void {
  it('write → list → download → openTar → verify: the same bytes all the way, the spec Snapshot shape', async () => {
    const job = await options.newJob('contract')
    const repository = options.open(job)
    const written = await repository.write(runOf(job, new Date('2026-02-01T02:00:00Z')))
    const listed = await options.open(job).list()
    expect(listed.map((s) => s.view.name)).to.deep.equal([written.name])
    const [snapshot] = listed
    expect(snapshot!.view).to.include({ jobName: 'contract', createdAt: '2026-02-01T02:00:00.000Z', damaged: false })
    expect(snapshot!.view.storages).to.deep.equal(repository.repositories.map((r) => r.name))
    expect(snapshot!.size).to.equal(written.size)

    const download = await repository.download(written.name)
    if (download.kind === 'stream') expect((await buffer(await download.open())).length).to.equal(written.size)
    else expect(download.url).to.match(/^https?:\/\//)

    const [copy] = await repository.copies(written.name)
    if (!copy || 'missing' in copy) throw new Error(`no copy: ${copy?.missing}`)
    let counted = 0
    const { files, record } = await tarFiles(await copy.snapshot.openTar({ onBytes: (n) => (counted += n) }))
    expect(files).to.deep.equal({ 'files/a.txt': contents['a.txt'], 'files/b.bin': contents['b.bin'] })
    // A record (a restore drill's reference), when there is one, lists exactly these files and sizes.
    if (record) expect(record.files.map(([name, size]) => [name, size])).to.deep.equal(Object.entries(files).map(([name, data]) => [name, data.length]))
    expect(counted).to.equal(written.size)
    const result = await copy.snapshot.verify({})
    expect(result, result.problems.join('; ')).to.include({ ok: true, bytes: written.size })
    expect(await rejection(repository.download('contract-not-a-snapshot.tar'))).to.be.instanceOf(SnapshotNotFoundError)
  })

  it('forget and retention remove snapshots for good; the newest is what copies() finds without a name', async () => {
    const job = await options.newJob('forgetting')
    const repository = options.open(job)
    const older = await repository.write(runOf(job, new Date('2026-02-01T02:00:00Z')))
    const middle = await repository.write(runOf(job, new Date('2026-02-02T02:00:00Z')))
    const newest = await repository.write(runOf(job, new Date('2026-02-03T02:00:00Z')))
    const [one] = repository.repositories
    expect(await one!.forget([older.name])).to.deep.equal([older.name])
    expect((await repository.list()).map((s) => s.view.name)).to.deep.equal([newest.name, middle.name])
    expect(await rejection(repository.download(older.name))).to.be.instanceOf(SnapshotNotFoundError)
    const log: string[] = []
    await repository.applyRetention({ last: 1 }, (_level, message) => log.push(message))
    expect((await options.open(job).list()).map((s) => s.view.name)).to.deep.equal([newest.name])
    expect(log).to.deep.equal([`retention (last 1): deleted ${middle.name} from "${one!.name}"`])
    const [copy] = await repository.copies()
    expect(copy && 'snapshot' in copy && copy.snapshot.view.name).to.equal(newest.name)
  })

  it('an aborted write rejects and leaves nothing listed or to remove', async () => {
    const job = await options.newJob('aborted')
    const repository = options.open(job)
    const controller = new AbortController()
    const error = await repository.write(runOf(job, new Date('2026-02-01T02:00:00Z'), contents, { file: 'b.bin', controller })).catch((err: Error) => err)
    expect(error).to.be.instanceOf(Error)
    expect(controller.signal.aborted).to.equal(true)
    expect(await repository.list()).to.deep.equal([])
    for (const one of repository.repositories) expect(await one.removeLeftovers()).to.equal(0)
  })

  it('what a killed run left is never listed, is removed by removeLeftovers, and the next write succeeds', async () => {
    const job = await options.newJob('killed')
    const repository = options.open(job)
    const kept = await repository.write(runOf(job, new Date('2026-02-01T02:00:00Z')))
    await options.leaveLeftovers(job)
    expect((await repository.list()).map((s) => s.view.name)).to.deep.equal([kept.name])
    const log: string[] = []
    await repository.removeLeftovers((_level, message) => log.push(message))
    expect(log).to.have.length(repository.repositories.length)
    expect(log[0]).to.match(/removed [1-9]\d* object\(s\) left by an unfinished run$/)
    for (const one of repository.repositories) expect(await one.removeLeftovers()).to.equal(0)
    const next = await repository.write(runOf(job, new Date('2026-02-02T02:00:00Z')))
    expect((await options.open(job).list()).map((s) => s.view.name)).to.deep.equal([next.name, kept.name])
  })
}
