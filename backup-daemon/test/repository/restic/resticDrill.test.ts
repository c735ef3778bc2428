/**
 * Issue 37: a restore drill proves restic copies. A job with an archive storage and a `restic` storage, and
 * a job with restic alone, each with a folder source (names that are not UTF-8, a backslash, a newline) and a
 * SQLite source: the drill restores every copy and compares it with what the backup recorded (the dump's
 * record inside its tar, restic's own listing of the folder's snapshot) and passes; the same names come back
 * byte-exact through `restore --to` from restic; one flipped byte in a restic pack makes the drill fail naming
 * the storage and the pack file.
 */
import { expect } from 'chai'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { requireRestic } from '../../support/requireRestic.js'
import { runCli } from '../../support/runCli.js'
import { execSqlite } from '../../support/sqliteDb.js'

/** Names of `dir`'s entries as bytes (hex), sorted. */
const namesOf = (dir: string) =>
  readdirSync(dir, { encoding: 'buffer' })
    .map((name) => name.toString('hex'))
    .sort()

describe('restic: restore drills prove restic copies (folder and dump sources, hostile names)', function () {
  this.timeout(300_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let file: string
  const site = () => join(tmp.dir, 'site')
  const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tmp.dir })

  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-drill-')
    mkdirSync(join(site(), 'docs'), { recursive: true })
    writeFileSync(join(site(), 'readme.txt'), 'hello\n'.repeat(100))
    writeFileSync(Buffer.from(join(site(), 'caf\\\xc3\xa9 file.txt'), 'latin1'), 'x')
    writeFileSync(
      Buffer.concat([Buffer.from(`${join(site(), 'docs')}/`), Buffer.from([0x6e, 0xff, 0xfe, 0x0a, 0x2e, 0x62, 0x69, 0x6e])]),
      Buffer.alloc(70_000, 7),
    )
    execSqlite(join(tmp.dir, 'app.db'), "CREATE TABLE items (name TEXT); INSERT INTO items VALUES ('alpha'), ('beta')")
    process.env.RESTIC_DRILL_PASSWORD = 'restic drill repository pass'
    file = await writeDaemonYaml(
      tmp.dir,
      `  - name: mixed
    compression: tar.zst
    sources:
      - { type: local, name: files, path: ./site }
      - { type: sqlite, name: db, path: ./app.db }
    storages:
      - { type: local, name: disk, path: ./store }
      - { type: restic, name: dedup, repository: ./repo-mixed, password: "env:RESTIC_DRILL_PASSWORD" }
  - name: alone
    sources:
      - { type: local, name: files, path: ./site }
      - { type: sqlite, name: db, path: ./app.db }
    storages:
      - { type: restic, name: only, repository: ./repo-alone, password: "env:RESTIC_DRILL_PASSWORD" }
`,
    )
    for (const job of ['mixed', 'alone']) {
      const run = await cli('run', job)
      expect(run.code, run.out).to.equal(0)
    }
  })
  after(() => tmp.remove())

  it('a drill of a job with an archive and a restic storage proves both', async () => {
    const drill = await cli('drill', 'mixed')
    expect(drill.code, drill.out).to.equal(0)
    expect(drill.out).to.include('restore proven on 2 storage(s)')
    expect(drill.out).to.match(/storage "dedup": mixed-\S+: restore proven: 4 of 4 file\(s\)/)
    expect(drill.out).to.include('source "db" (sqlite)')
    expect(drill.out).not.to.include('restored but not in the record')
  })

  it('a drill of a restic-only job proves it, minutes after the run', async () => {
    const drill = await cli('drill', 'alone')
    expect(drill.code, drill.out).to.equal(0)
    expect(drill.out).to.match(/storage "only": alone-\S+: restore proven: 4 of 4 file\(s\) .* the repository's listing/)
  })

  it('restore --to from restic gives every name back byte-exact', async () => {
    const [snapshot] = (await cli('snapshots', 'alone', '--json')).out
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { name: string }).name)
    const restored = await cli('restore', 'alone', snapshot!, '--to', 'back')
    expect(restored.code, restored.out).to.equal(0)
    expect(namesOf(join(tmp.dir, 'back', 'files'))).to.deep.equal(namesOf(site()))
    expect(namesOf(join(tmp.dir, 'back', 'files', 'docs'))).to.deep.equal(namesOf(join(site(), 'docs')))
  })

  it('one flipped byte in a restic pack: the drill fails naming the storage and the pack file', async () => {
    const data = join(tmp.dir, 'repo-alone', 'data')
    // The largest pack holds the 70 kB file's blob.
    const packs = readdirSync(data).flatMap((sub) => readdirSync(join(data, sub)).map((name) => join(data, sub, name)))
    const pack = packs.sort((a, b) => readFileSync(b).length - readFileSync(a).length)[0]!
    const bytes = readFileSync(pack)
    bytes[100] = bytes[100]! ^ 0xff
    writeFileSync(pack, bytes)
    const drill = await cli('drill', 'alone')
    expect(drill.code, drill.out).to.equal(1)
    expect(drill.out).to.match(/storage "only": alone-\S+: damaged, not restored/)
    expect(drill.out).to.include(`data/${pack.split('/').at(-1)!.slice(0, 2)}/${pack.split('/').at(-1)}`)
  })
})
