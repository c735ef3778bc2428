/**
 * Snapshots the original service (snapr) left on a storage, written here with the tools it runs (tar
 * with pigz/zstd/xz, zip, openssl enc -pbkdf2, split -a 3): the engine lists them next to its own
 * (unchecksummed, by time), downloads them whole, as a split set and by part, verifies and restores
 * them (files and a database), refuses damaged ones, and its retention deletes them (a split set as one).
 */
import { expect } from 'chai'
import { access, readdir, rm, truncate, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buffer } from 'node:stream/consumers'
import { createEngine, type DaemonEngine } from '../../src/engine/createEngine.js'
import { FullDownloadUnsupportedError, SnapshotDamagedError, SnapshotNotFoundError } from '../../src/runs/errors.js'
import type { SnapshotDownload, SnapshotView } from '../../src/engine/types.js'
import { tempDir } from '../engine/helpers.js'
import { legacyConfig, makeFiles, makeSqlite, restore, snapshotOfFiles, sqliteValue, verify } from './support/compatFixture.js'
import { writeOriginal, type OriginalSnapshot } from './support/originalSnapshots.js'

const download = async (d: SnapshotDownload) => {
  if (d.kind !== 'stream') throw new Error('expected a stream')
  return buffer(await d.open())
}
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )
const day = (n: number) => new Date(Date.UTC(2026, 0, n, 3, 0, 0))
const password = 'old-service-password'

describe("compat: the original service's snapshots", function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let engine: DaemonEngine | undefined
  const theirs: Record<string, OriginalSnapshot> = {}
  let expected: Record<string, string>

  beforeEach(async () => {
    tmp = await tempDir('bd-compat-')
    const sources = join(tmp.dir, 'snapr-sources')
    await makeFiles(join(sources, 'local_1'))
    await makeFiles(join(tmp.dir, 'live'))
    await (await import('node:fs/promises')).mkdir(join(sources, 'sqlite_1'))
    await makeSqlite(join(sources, 'sqlite_1', 'app.db'), 'theirs')
    await makeSqlite(join(tmp.dir, 'app.db'), 'ours')
    expected = await snapshotOfFiles(join(sources, 'local_1'))
    const store = join(tmp.dir, 'store')
    const common = { store, job: 'legacy', sources }
    theirs.gz = await writeOriginal({ ...common, at: day(1), compression: 'tar.gz' })
    theirs.zstSplit = await writeOriginal({ ...common, at: day(2), compression: 'tar.zst', chunkSize: 65_536 })
    theirs.xz = await writeOriginal({ ...common, at: day(3), compression: 'tar.xz' })
    theirs.zip = await writeOriginal({ ...common, at: day(4), compression: 'zip' })
    theirs.enc = await writeOriginal({ ...common, at: day(5), compression: 'tar', encryption: { password }, chunkSize: 100_000 })
    theirs.missingPart = await writeOriginal({ ...common, at: day(6), compression: 'tar.gz', chunkSize: 50_000 })
    await unlink(join(theirs.missingPart.dir, theirs.missingPart.wrapper!, theirs.missingPart.parts[1]!))
    theirs.truncatedPart = await writeOriginal({ ...common, at: day(7), compression: 'tar', chunkSize: 100_000 })
    await truncate(join(theirs.truncatedPart.dir, theirs.truncatedPart.wrapper!, theirs.truncatedPart.parts.at(-1)!), 10)
    theirs.truncated = await writeOriginal({ ...common, at: day(8), compression: 'tar.gz' })
    await truncate(join(theirs.truncated.dir, theirs.truncated.name), Math.floor(theirs.truncated.bytes.length / 2))
    // Something else in the job folder: neither listed nor deleted.
    await writeFile(join(store, 'legacy', 'notes.txt'), 'keep me')
  })
  afterEach(async () => {
    await engine?.stop()
    engine = undefined
    await tmp.remove()
  })

  const start = async (change?: Parameters<typeof legacyConfig>[1]) => {
    const config = await legacyConfig(tmp.dir, (job) => {
      job.encryption = { type: 'openssl', cipher: 'aes-256-cbc', password }
      change?.(job)
    })
    engine = await createEngine(config, { schedule: false, persistLogs: false })
    return { engine, job: config.jobs[0]! }
  }
  const runOnce = async (e: DaemonEngine) => {
    e.run('legacy', 'manual')
    const info = await e.whenIdle('legacy')
    expect(info.status, info.error).to.equal('success')
  }
  const byName = (list: SnapshotView[]) => new Map(list.map((s) => [s.name, s]))

  it('lists them next to our own, newest first by time, unchecksummed, split sets and damage read from the listing', async () => {
    const { engine: e } = await start()
    await runOnce(e)
    const list = await e.listSnapshots('legacy')
    expect(list.map((s) => s.name)).to.have.length(9)
    const ours = list[0]!
    expect(ours.name).to.match(/^legacy-\d{4}-\d\d-\d\dT.*Z\.tar\.gz\.enc$/)
    expect(ours).to.include({ checksummed: true, damaged: false, storage: 'disk' })
    expect(ours.storages).to.deep.equal(['disk', 'spare'])
    expect(list.slice(1).map((s) => s.name)).to.deep.equal(
      [theirs.truncated, theirs.truncatedPart, theirs.missingPart, theirs.enc, theirs.zip, theirs.xz, theirs.zstSplit, theirs.gz].map((t) => t!.name),
    )
    const views = byName(list)
    const gz = views.get(theirs.gz!.name)!
    expect(gz).to.deep.include({
      id: gz.name,
      jobName: 'legacy',
      checksummed: false,
      damaged: false,
      isSplit: false,
      partsCount: 1,
      size: theirs.gz!.bytes.length,
      storage: 'disk',
      storages: ['disk'],
      createdAt: '2026-01-01T03:00:00.000Z',
    })
    expect(gz.damageReason).to.equal(undefined)
    const split = views.get(theirs.zstSplit!.name)!
    expect(split).to.include({
      isSplit: true,
      partsCount: theirs.zstSplit!.parts.length,
      size: theirs.zstSplit!.bytes.length,
      damaged: false,
      checksummed: false,
    })
    expect(theirs.zstSplit!.parts.length).to.be.greaterThan(2)
    expect(split.path).to.equal(`legacy/${theirs.zstSplit!.wrapper}`)
    const missing = views.get(theirs.missingPart!.name)!
    expect(missing).to.include({ damaged: true, isSplit: true, fullDownloadSupported: false })
    expect(missing.damageReason).to.match(/1 of \d+ part\(s\) missing/)
    const cut = views.get(theirs.truncatedPart!.name)!
    expect(cut).to.include({ damaged: true })
    expect(cut.damageReason).to.match(/parts hold \d+ bytes, the set declares \d+/)
    // A truncated single file cannot be told from the listing: verify finds it (below).
    expect(views.get(theirs.truncated!.name)).to.include({ damaged: false, checksummed: false })
  })

  it('downloads one whole, a split set whole, one part; a vanished object is a 404, a damaged set is refused', async () => {
    const { engine: e } = await start()
    expect(await download(await e.openSnapshot('legacy', theirs.gz!.name))).to.deep.equal(theirs.gz!.bytes)
    const whole = await e.openSnapshot('legacy', theirs.zstSplit!.name)
    expect(whole).to.include({ kind: 'stream', size: theirs.zstSplit!.bytes.length })
    expect(await download(whole)).to.deep.equal(theirs.zstSplit!.bytes)
    const part = await e.openSnapshot('legacy', `${theirs.zstSplit!.name}.part-aab`)
    expect(await download(part)).to.deep.equal(theirs.zstSplit!.bytes.subarray(65_536, 131_072))
    const encrypted = await e.openSnapshot('legacy', theirs.enc!.name)
    expect(encrypted).to.include({ contentType: 'application/octet-stream' })
    expect(await download(encrypted)).to.deep.equal(theirs.enc!.bytes)
    try {
      await e.openSnapshot('legacy', theirs.missingPart!.name)
      expect.fail('a damaged set was served')
    } catch (err) {
      expect(err).to.be.instanceOf(SnapshotDamagedError).and.to.be.instanceOf(FullDownloadUnsupportedError)
      expect((err as Error).message).to.match(/is damaged \(1 of \d+ part\(s\) missing\)/)
    }
    const present = theirs.missingPart!.parts[0]!
    expect(await download(await e.openSnapshot('legacy', present))).to.deep.equal(theirs.missingPart!.bytes.subarray(0, 50_000))
    // Listed, then deleted before the bytes are read: 404, not a server error.
    const gone = await e.openSnapshot('legacy', theirs.xz!.name)
    await unlink(join(theirs.xz!.dir, theirs.xz!.name))
    if (gone.kind !== 'stream') throw new Error('expected a stream')
    try {
      await gone.open()
      expect.fail('opened a deleted object')
    } catch (err) {
      expect(err).to.be.instanceOf(SnapshotNotFoundError)
    }
    try {
      await e.openSnapshot('legacy', 'notes.txt')
      expect.fail('served an unlisted object')
    } catch (err) {
      expect(err).to.be.instanceOf(SnapshotNotFoundError)
    }
  })

  it('verifies what can be verified: reads every format to its end, decrypts; refuses damaged and truncated ones', async () => {
    const { job } = await start()
    for (const key of ['gz', 'zstSplit', 'xz', 'zip', 'enc'] as const) {
      const result = await verify(job, theirs[key]!.name, 'disk')
      expect(result.code, `${key}: ${result.stdout}${result.stderr}`).to.equal(0)
      expect(result.stdout, result.stdout).to.match(/OK \(\d+ part\(s\), \d+ bytes; no checksum to compare .* \d+ entries read to the end\)/)
    }
    const missing = await verify(job, theirs.missingPart!.name, 'disk')
    expect(missing.code).to.equal(1)
    expect(missing.stderr).to.match(/damaged: 1 of \d+ part\(s\) missing/)
    const truncated = await verify(job, theirs.truncated!.name, 'disk')
    expect(truncated.code).to.equal(1)
    expect(truncated.stderr).to.match(/the archive does not read to its end/)
    const wrong = await verify({ ...job, encryption: { type: 'openssl', cipher: 'aes-256-cbc', password: 'not-it' } }, theirs.enc!.name, 'disk')
    expect(wrong.code).to.equal(1)
    expect(wrong.stderr).to.include('wrong password or not an openssl-encrypted file')
    expect(wrong.stderr + wrong.stdout).not.to.include('not-it')
  })

  it('restores every format into a folder; damaged and truncated ones are refused and nothing is written', async () => {
    const { job } = await start()
    for (const key of ['gz', 'zstSplit', 'xz', 'zip', 'enc'] as const) {
      const to = join(tmp.dir, `restored-${key}`)
      const result = await restore(job, { snapshot: theirs[key]!.name, to })
      expect(result.code, `${key}: ${result.stdout}${result.stderr}`).to.equal(0)
      expect(await snapshotOfFiles(join(to, 'local_1')), key).to.deep.equal(expected)
      expect(await sqliteValue(join(to, 'sqlite_1', 'app.db'))).to.equal('theirs')
    }
    for (const key of ['missingPart', 'truncatedPart', 'truncated'] as const) {
      const to = join(tmp.dir, `refused-${key}`)
      const result = await restore(job, { snapshot: theirs[key]!.name, to })
      expect(result.code, key).to.equal(1)
      expect(result.stderr).to.match(/no storage holds an intact copy/)
      expect(await exists(to), `${key}: nothing written`).to.equal(false)
    }
  })

  it('restores a database from their archive (./sqlite_1/ is the first sqlite source) with --into-database', async () => {
    const { job } = await start()
    const refused = await restore(job, { snapshot: theirs.zip!.name, intoDatabase: true })
    expect(refused.code, 'an existing database is kept without --force').to.equal(1)
    expect(await sqliteValue(join(tmp.dir, 'app.db'))).to.equal('ours')
    const result = await restore(job, { snapshot: theirs.zip!.name, intoDatabase: true, force: true })
    expect(result.code, result.stdout + result.stderr).to.equal(0)
    expect(result.stdout).to.match(/restoring source "db" \(sqlite\) from sqlite_1\/app\.db/)
    expect(await sqliteValue(join(tmp.dir, 'app.db'))).to.equal('theirs')
  })

  it('retention counts theirs with ours: the oldest go, a split set as one (its folder removed), other files stay', async () => {
    const { engine: e } = await start((job) => {
      job.retention = { last: 3 }
    })
    await runOnce(e)
    const names = (await e.listSnapshots('legacy')).map((s) => s.name)
    expect(names).to.have.length(3)
    expect(names.slice(1)).to.deep.equal([theirs.truncated!.name, theirs.truncatedPart!.name])
    const left = await readdir(join(tmp.dir, 'store', 'legacy'))
    expect(left.filter((n) => !n.startsWith(`legacy-2026-`)).sort()).to.deep.equal([theirs.truncated!.name, theirs.truncatedPart!.wrapper!, 'notes.txt'].sort())
    expect(left.some((n) => n.includes('.parts-') && n.startsWith(theirs.zstSplit!.name))).to.equal(false)
  })

  it('includeJobName: false reads and writes the storage root, shared with another job whose files it never touches', async () => {
    const shared = join(tmp.dir, 'shared')
    const sources = join(tmp.dir, 'snapr-sources')
    const old = await writeOriginal({ store: shared, job: 'legacy', sources, at: day(9), compression: 'tar.gz', includeJobName: false, chunkSize: 65_536 })
    const older = await writeOriginal({ store: shared, job: 'legacy', sources, at: day(1), compression: 'tar.gz', includeJobName: false })
    const other = await writeOriginal({ store: shared, job: 'legacy2', sources, at: day(1), compression: 'tar.gz', includeJobName: false })
    const { engine: e } = await start((job) => {
      job.storages = [{ type: 'local', name: 'flat', path: shared, includeJobName: false } as (typeof job.storages)[number]]
      job.retention = { last: 2 }
    })
    expect((await e.listSnapshots('legacy')).map((s) => s.name)).to.deep.equal([old.name, older.name])
    await runOnce(e)
    const list = await e.listSnapshots('legacy')
    expect(list.map((s) => s.name)[1]).to.equal(old.name)
    expect(list[0]!.path).to.equal(list[0]!.name)
    const root = await readdir(shared)
    expect(root).to.include(other.name).and.to.include(`${list[0]!.name}.manifest.json`).and.not.to.include(older.name)
    expect(root.filter((n) => n.endsWith('.incomplete'))).to.deep.equal([])
    expect(root, 'the temporary folder is removed again').not.to.include('legacy')
    expect(await download(await e.openSnapshot('legacy', `${old.name}.part-aaa`))).to.deep.equal(old.bytes.subarray(0, 65_536))
  })

  it("defaultStorage: the copy listed and downloaded is the default storage's; storages names every copy", async () => {
    const sources = join(tmp.dir, 'snapr-sources')
    const copy = await writeOriginal({ store: join(tmp.dir, 'spare'), job: 'legacy', sources, at: day(1), compression: 'tar.gz' })
    await rm(join(theirs.gz!.dir, theirs.gz!.name))
    await writeOriginal({ store: join(tmp.dir, 'store'), job: 'legacy', sources, at: day(1), compression: 'tar' })
    const { engine: e } = await start((job) => {
      ;(job as typeof job & { defaultStorage?: string }).defaultStorage = 'spare'
    })
    const view = (await e.listSnapshots('legacy')).find((s) => s.name === copy.name)!
    expect(view).to.include({ storage: 'spare' })
    expect(view.storages).to.deep.equal(['spare'])
    await writeOriginal({ store: join(tmp.dir, 'store'), job: 'legacy', sources, at: day(1), compression: 'tar.gz' })
    const both = (await e.listSnapshots('legacy')).find((s) => s.name === copy.name)!
    expect(both).to.include({ storage: 'spare' })
    expect(both.storages).to.deep.equal(['spare', 'disk'])
    expect(await download(await e.openSnapshot('legacy', copy.name))).to.deep.equal(copy.bytes)
  })
})
