/**
 * Snapshot names of both forms, and what the catalog lists, keeps and removes in a real folder: our
 * half-written runs are leftovers (removed), the original service's manifest-less snapshots are listed,
 * damaged sets are listed as damaged (never removed as leftovers), foreign files and other jobs' objects
 * are left alone, in both layouts (`includeJobName`).
 */
import { expect } from 'chai'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { jobLayout, parseSnapshotName, snapshotName } from '../../src/repository/archives/layout.js'
import { listCatalog, removeLeftovers } from '../../src/repository/archives/catalog.js'
import { LocalStorage } from '../../src/storages/local.js'
import { tempDir } from '../engine/helpers.js'

describe('snapshot names and the catalog', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => {
    tmp = await tempDir('bd-catalog-')
  })
  afterEach(() => tmp.remove())

  const put = async (path: string, bytes: number | string = 10) => {
    await mkdir(join(tmp.dir, path, '..'), { recursive: true })
    await writeFile(join(tmp.dir, path), typeof bytes === 'number' ? Buffer.alloc(bytes) : bytes)
  }

  it('parses both name forms with compression and encryption, and nothing else', () => {
    const at = new Date('2026-01-31T02:03:04.005Z')
    expect(parseSnapshotName('j', snapshotName('j', at, 'tar.xz', 'openssl'))).to.deep.equal({
      form: 'daemon',
      createdAt: at,
      compression: 'tar.xz',
      encryption: 'openssl',
    })
    expect(snapshotName('j', at, 'zip', true)).to.equal('j-2026-01-31T02-03-04-005Z.zip.age')
    expect(parseSnapshotName('j', 'j-20260131-020304.tar.zst.enc')).to.deep.equal({
      form: 'original',
      createdAt: new Date('2026-01-31T02:03:04Z'),
      compression: 'tar.zst',
      encryption: 'openssl',
    })
    expect(parseSnapshotName('j-b', 'j-b-20260131-020304.zip')).to.include({ form: 'original', compression: 'zip' })
    for (const other of [
      'j-20260131-020304.tar.bz2',
      'j-20261331-020304.tar',
      'k-20260131-020304.tar',
      'j-b-20260131-020304.tar',
      'j-20260131-020304.tar.age',
      'j-20260131-020304.tar.tmp',
    ]) {
      expect(parseSnapshotName('j', other), other).to.equal(undefined)
    }
  })

  it('J/: lists ours with a manifest and theirs without; removes only our leftovers; a damaged set of ours stays listed', async () => {
    const ours = 'j-2026-01-02T00-00-00-000Z.tar'
    await put(`j/${ours}`)
    await put(`j/${ours}.manifest.json`, '{}')
    const half = 'j-2026-01-03T00-00-00-000Z.tar.gz'
    await put(`j/${half}.parts-2-20/${half}.part-aaa`)
    await put(`j/.0123.incomplete`)
    const broken = 'j-2026-01-04T00-00-00-000Z.tar'
    await put(`j/${broken}.parts-2-20/${broken}.part-aaa`)
    await put(`j/${broken}.manifest.json`, '{}')
    await put('j/j-20260101-000000.tar.gz')
    await put('j/j-20260101-000000.tar.gz.tmp')
    await put('j/README')
    const storage = new LocalStorage('disk', tmp.dir)
    const { snapshots, orphans } = await listCatalog(storage, 'j')
    expect(snapshots.map((s) => [s.view.name, s.view.checksummed, s.view.damaged])).to.deep.equal([
      [broken, true, true],
      [ours, true, false],
      ['j-20260101-000000.tar.gz', false, false],
    ])
    expect(orphans.map((o) => o.key).sort()).to.deep.equal([`j/${half}.parts-2-20/${half}.part-aaa`, 'j/.0123.incomplete'].sort())
    expect(await removeLeftovers(storage, 'j')).to.equal(2)
    expect((await readdir(join(tmp.dir, 'j'))).sort()).to.deep.equal(
      [
        ours,
        `${ours}.manifest.json`,
        `${broken}.parts-2-20`,
        `${broken}.manifest.json`,
        'j-20260101-000000.tar.gz',
        'j-20260101-000000.tar.gz.tmp',
        'README',
      ].sort(),
    )
  })

  it("includeJobName: false: the root holds several jobs; only this job's names and its own temporary objects count", async () => {
    await put('j-20260101-000000.zip')
    await put('j-2026-01-05T00-00-00-000Z.tar')
    await put('j/.0123.incomplete')
    await put('k-20260101-000000.zip')
    await put('k/.4567.incomplete')
    await put('k/k-20260101-000000.zip')
    const storage = new LocalStorage('flat', tmp.dir)
    const flat = jobLayout('j', false)
    const { snapshots, orphans } = await listCatalog(storage, flat)
    expect(snapshots.map((s) => [s.view.name, s.view.path])).to.deep.equal([['j-20260101-000000.zip', 'j-20260101-000000.zip']])
    expect(orphans.map((o) => o.key).sort()).to.deep.equal(['j-2026-01-05T00-00-00-000Z.tar', 'j/.0123.incomplete'])
    await removeLeftovers(storage, flat)
    expect((await readdir(tmp.dir)).sort()).to.deep.equal(['j-20260101-000000.zip', 'k', 'k-20260101-000000.zip'])
    expect((await readdir(join(tmp.dir, 'k'))).sort()).to.deep.equal(['.4567.incomplete', 'k-20260101-000000.zip'])
  })
})
