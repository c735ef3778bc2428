import { expect } from 'chai'
import { createRequire } from 'node:module'
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { restoreSqlite } from '../../src/sources/sqlite/restoreSqlite.js'
import { SqliteSource, sqliteSource } from '../../src/sources/sqlite/index.js'
import type { SourceEntry } from '../../src/sources/types.js'
import { startSqliteWriter, type SqliteWriter } from './support/sqliteWriter.js'
import { entriesOf } from '../support/entriesOf.js'

interface Db {
  prepare(sql: string): { get(): Record<string, unknown>; all(): Record<string, unknown>[] }
  exec(sql: string): void
  close(): void
}
const Database = createRequire(import.meta.url)('libsql') as new (path: string) => Db
const never = () => new AbortController().signal
const logs: string[] = []
const context = { log: (_level: string, message: string) => logs.push(message) }

async function collect(source: SqliteSource, signal = never()): Promise<{ entries: SourceEntry[]; bytes: Buffer }> {
  const entries: SourceEntry[] = []
  let bytes = Buffer.alloc(0)
  for await (const entry of entriesOf(source, signal)) {
    entries.push(entry)
    if (entry.open) bytes = await buffer(entry.open(signal))
  }
  return { entries, bytes }
}

function check(path: string): { integrity: unknown; sum: unknown; count: number } {
  const db = new Database(path)
  try {
    const integrity = db.prepare('PRAGMA integrity_check').get().integrity_check
    const row = db.prepare('SELECT COALESCE(SUM(n), 0) AS sum, COUNT(*) AS count FROM t').get()
    return { integrity, sum: row.sum, count: Number(row.count) }
  } finally {
    db.close()
  }
}

describe('sources/sqlite', () => {
  let dir: string
  let writer: SqliteWriter | undefined
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bd-sqlite-'))
  })
  afterEach(async () => {
    await writer?.stop()
    writer = undefined
    await rm(dir, { recursive: true, force: true })
  })

  for (const journal of ['WAL', 'DELETE'] as const) {
    it(`takes a consistent snapshot while another process writes (journal_mode=${journal}) and restores it`, async function () {
      this.timeout(60_000)
      const path = join(dir, 'payload.db')
      writer = await startSqliteWriter(path, journal)
      const source = new SqliteSource('cms', path, context)
      const { entries, bytes } = await collect(source)
      expect(entries.map((e) => [e.name, e.type])).to.deep.equal([
        ['cms', 'directory'],
        ['cms/payload.sqlite', 'file'],
      ])
      expect(entries[1]!.size).to.equal(bytes.length)
      const restored = join(dir, 'restored.db')
      await restoreSqlite(Readable.from([bytes]), restored)
      const state = check(restored)
      expect(state.integrity).to.equal('ok')
      expect(state.sum).to.equal(0)
      expect(state.count % 2).to.equal(0)
      expect(state.count).to.be.at.least(40_000)
      // The writer went on after the snapshot: the live database moved past it.
      await writer.stop()
      expect(check(path).count).to.be.greaterThan(state.count)
    })
  }

  it('removes its temporary copy once the archive moved on', async () => {
    const path = join(dir, 'small.db')
    const db = new Database(path)
    db.exec('CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1)')
    db.close()
    let copyPath: string | undefined
    for await (const entry of entriesOf(new SqliteSource('s', path, context, dir), never())) {
      if (entry.type === 'file') {
        const stream = entry.open!(never()) as unknown as { path: string }
        copyPath = stream.path
        await buffer(stream as unknown as Readable)
      }
    }
    expect(copyPath).to.be.a('string')
    expect(await stat(copyPath!).catch(() => 'gone')).to.equal('gone')
  })

  it('refuses a missing database instead of creating an empty one', async () => {
    const path = join(dir, 'missing.db')
    const err = await collect(new SqliteSource('s', path, context)).catch((e: unknown) => e)
    expect(err).to.be.instanceOf(Error)
    expect(await stat(path).catch(() => 'absent')).to.equal('absent')
  })

  it("fails with the tool's message on a file that is not a database", async () => {
    const path = join(dir, 'not.db')
    await writeFile(path, 'this is not a database file, just text '.repeat(100))
    const err = (await collect(new SqliteSource('s', path, context)).catch((e: unknown) => e)) as Error
    expect(err.message).to.match(/not a database|file is encrypted/i)
  })

  it('stops at once when cancelled', async () => {
    const path = join(dir, 'payload.db')
    writer = await startSqliteWriter(path, 'WAL')
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('cancelled by test')), 30)
    const err = (await collect(new SqliteSource('s', path, context), controller.signal).catch((e: unknown) => e)) as Error
    expect(err.message).to.equal('cancelled by test')
  })

  it('refuses to restore over an existing file unless told to, and never keeps a corrupt one', async () => {
    const target = join(dir, 'target.db')
    await writeFile(target, 'keep me')
    const refused = await restoreSqlite(Readable.from([Buffer.from('x')]), target).catch((e: unknown) => e)
    expect(refused).to.be.instanceOf(Error)
    const corrupt = await restoreSqlite(Readable.from([Buffer.alloc(8192, 1)]), target, { overwrite: true }).catch((e: unknown) => e)
    expect(corrupt).to.be.instanceOf(Error)
    expect((await buffer(Readable.from([await import('node:fs/promises').then((fs) => fs.readFile(target))]))).toString()).to.equal('keep me')
  })

  it('validates its config entry', () => {
    expect(sqliteSource.configSchema.safeParse({ type: 'sqlite', name: 'db', path: 'a.db' }).success).to.equal(true)
    expect(sqliteSource.configSchema.safeParse({ type: 'sqlite', name: '../x', path: 'a.db' }).success).to.equal(false)
    expect(sqliteSource.configSchema.safeParse({ type: 'sqlite', name: 'db' }).success).to.equal(false)
  })
})
