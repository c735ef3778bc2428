/**
 * @module test/repository/restic/resticDumpOnce
 * A job with an archive storage and a restic storage (issue 27): its database is dumped once per run
 * (`repository/dumpOnce.ts`), and both storages hold that one dump: restored from each, the files are
 * the same bytes. The folder source is read by each (a walk, restic's stat per file).
 */
import { expect } from 'chai'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { makeTree, tempDir } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { requireRestic } from '../../support/requireRestic.js'
import { runCli } from '../../support/runCli.js'
import { writeItemsDb } from '../../support/sqliteDb.js'
import { treeOf } from './support/treeOf.js'

describe('restic and archives in one job: each dump taken once', function () {
  this.timeout(180_000)
  let tmp: { dir: string; remove(): Promise<void> }
  let file: string
  const env = { RESTIC_TEST_PASSWORD: 'dump once passphrase' }
  const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tmp.dir, env })

  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-once-')
    await makeTree(join(tmp.dir, 'src'))
    writeItemsDb(join(tmp.dir, 'app.db'), ['alpha', 'beta'])
    file = await writeDaemonYaml(
      tmp.dir,
      `  - name: both
    compression: tar.gz
    sources:
      - { type: local, name: files, path: ./src }
      - { type: sqlite, name: db, path: ./app.db }
    storages:
      - { type: local, name: disk, path: ./archives }
      - { type: restic, name: dedup, repository: ./repo, password: env:RESTIC_TEST_PASSWORD }
`,
    )
  })
  after(() => tmp?.remove())

  it('dumps the database once; both storages restore it to the same bytes', async () => {
    const run = await cli('run', 'both')
    expect(run.code, run.out).to.equal(0)
    const dumps = run.out.split('\n').filter((line) => line.includes('source "db": consistent copy of'))
    expect(dumps, run.out).to.have.length(1)
    const views = (await cli('snapshots', 'both', '--json')).out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { name: string; storages: string[] })
    // One run, one listed snapshot on both storages; its name restores from either.
    expect(views.map((v) => v.storages)).to.deep.equal([['disk', 'dedup']])
    for (const storage of views[0]!.storages) {
      const restore = await cli('restore', 'both', views[0]!.name, '--storage', storage, '--to', `./out-${storage}`)
      expect(restore.code, restore.out).to.equal(0)
    }
    const dbFiles = await readdir(join(tmp.dir, 'out-disk/db'))
    expect(dbFiles).to.have.length(1)
    const fromArchive = await readFile(join(tmp.dir, 'out-disk/db', dbFiles[0]!))
    const fromRestic = await readFile(join(tmp.dir, 'out-dedup/db', dbFiles[0]!))
    expect(fromArchive.length).to.be.greaterThan(0)
    expect(fromRestic.equals(fromArchive)).to.equal(true)
    expect(await treeOf(join(tmp.dir, 'out-dedup/files'))).to.deep.equal(await treeOf(join(tmp.dir, 'src')))
    expect(await treeOf(join(tmp.dir, 'out-disk/files'))).to.deep.equal(await treeOf(join(tmp.dir, 'src')))
    // The spooled dump is gone with the run.
    expect(await readdir(join(tmp.dir, 'data/spool'))).to.deep.equal([])
  })
})
