/**
 * The snapshot's record (`tar/snapshotRecord.ts`), the tar's last entry: every file entry's path, size and
 * digest as archived, whichever way the tar is built (the local source's worker, its batches, a streamed
 * database copy), and what the SQLite source read from the copy it archived (tables, row counts). A restore
 * (`extractTo`) never writes it; a zip carries none.
 */
import { expect } from 'chai'
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { crc32 } from 'node:zlib'
import { createArchive } from '../../src/archive/createArchive.js'
import { forEachTarEntry } from '../../src/tar/forEachTarEntry.js'
import { extractTo } from '../../src/restore/extractTo.js'
import { LocalSource } from '../../src/sources/local/index.js'
import { SqliteSource } from '../../src/sources/sqlite/index.js'
import { tarWorkerStepsReceived } from '../../src/sources/local/tarWorker/tarWorkerTree.js'
import { parseRecord, recordEntryName, type SnapshotRecord } from '../../src/tar/snapshotRecord.js'
import { tempDir } from '../engine/helpers.js'

const Database = createRequire(import.meta.url)('libsql') as new (path: string) => { exec(sql: string): void; close(): void }
const context = { log: () => {} }
const hex = (data: Buffer) => (crc32(data) >>> 0).toString(16).padStart(8, '0')

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** Every file entry's bytes, and the record. */
async function readTar(tar: Buffer): Promise<{ files: Map<string, Buffer>; names: string[]; record?: SnapshotRecord }> {
  const files = new Map<string, Buffer>()
  const names: string[] = []
  let record: SnapshotRecord | undefined
  await forEachTarEntry(Readable.from([tar]), async (header, stream) => {
    names.push(header.name)
    const body = await collect(stream as AsyncIterable<Buffer>)
    if (header.name === recordEntryName) record = parseRecord(body)
    else if (header.type === 'file') files.set(header.name, body)
  })
  return { files, names, ...(record && { record }) }
}

describe('the snapshot record: every file with its size and digest, and what the sources recorded', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let root: string
  let dbFile: string

  before(async () => {
    tmp = await tempDir('bd-record-')
    root = join(tmp.dir, 'tree')
    await mkdir(join(root, 'a'), { recursive: true })
    await writeFile(join(root, 'a', 'small.txt'), 'hello')
    await writeFile(join(root, 'a', 'large.bin'), randomBytes(3 * 1024 * 1024 + 3))
    await writeFile(join(root, 'empty'), '')
    for (let i = 0; i < 200; i++) await writeFile(join(root, `f${i}`), randomBytes(i * 13))
    dbFile = join(tmp.dir, 'app.db')
    const db = new Database(dbFile)
    db.exec('CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT); CREATE TABLE "odd ""name""" (x);')
    for (let i = 0; i < 37; i++) db.exec(`INSERT INTO posts (title) VALUES ('post ${i}')`)
    db.exec(`INSERT INTO "odd ""name""" VALUES (1), (2)`)
    db.close()
  })
  after(() => tmp.remove())

  for (const tarBuilder of ['worker', 'batches'] as const) {
    it(`records every file as archived (local source built by ${tarBuilder}, a SQLite copy streamed) and the tables' row counts`, async () => {
      const sources = [new LocalSource('files', root, [], context, { tarBuilder }), new SqliteSource('db', dbFile, context)]
      const tar = await collect(createArchive(sources, { compression: 'tar', signal: new AbortController().signal }))
      const { files, names, record } = await readTar(tar)
      expect(names.at(-1)).to.equal(recordEntryName)
      expect(record!.digest).to.equal('crc32')
      expect(record!.files.map(([name]) => name).sort()).to.deep.equal([...files.keys()].sort())
      for (const [name, size, digest] of record!.files) {
        const bytes = files.get(name)!
        expect([size, digest], name).to.deep.equal([bytes.length, hex(bytes)])
      }
      expect(files.has('db/app.sqlite')).to.equal(true)
      expect(record!.sources).to.deep.equal({ db: { type: 'sqlite', recorded: { tables: { posts: 37, 'odd "name"': 2 } } } })
    })
  }

  for (const tarBuilder of ['worker', 'batches'] as const) {
    it(`a path JSON must escape (quote, backslash, newline) or not (non-ASCII) round-trips through the record (${tarBuilder})`, async () => {
      const odd = join(tmp.dir, `odd-${tarBuilder}`)
      const names = ['say "hi".txt', 'back\\slash', 'two\nlines', 'ñandú 日本語.txt', 'plain']
      await mkdir(join(odd, 'sub "folder"'), { recursive: true })
      for (const [i, name] of names.entries()) await writeFile(join(odd, 'sub "folder"', name), randomBytes(i * 300))
      const steps = tarWorkerStepsReceived()
      const tar = await collect(
        createArchive([new LocalSource('odd', odd, [], context, { tarBuilder })], { compression: 'tar', signal: new AbortController().signal }),
      )
      // The worker's items cross to the main thread as bytes: it must really have run.
      expect(tarWorkerStepsReceived() > steps, 'steps posted by the tar worker').to.equal(tarBuilder === 'worker')
      const { files, record } = await readTar(tar)
      const expected = names.map((name) => `odd/sub "folder"/${name}`).sort()
      expect([...files.keys()].sort()).to.deep.equal(expected)
      expect(record!.files.map(([name]) => name).sort()).to.deep.equal(expected)
      for (const [name, size, digest] of record!.files) expect([size, digest], name).to.deep.equal([files.get(name)!.length, hex(files.get(name)!)])
    })
  }

  it('another digest is recorded when asked for (the cost bench compares them); `record: false` writes none', async () => {
    const tar = await collect(
      createArchive([new LocalSource('files', root, [], context)], { compression: 'tar', record: 'sha256', signal: new AbortController().signal }),
    )
    const { files, record } = await readTar(tar)
    const small = record!.files.find(([name]) => name === 'files/a/small.txt')!
    expect(record!.digest).to.equal('sha256')
    expect(small[2]).to.equal(createHash('sha256').update(files.get('files/a/small.txt')!).digest('hex'))
    const none = await collect(
      createArchive([new LocalSource('files', root, [], context)], { compression: 'tar', record: false, signal: new AbortController().signal }),
    )
    expect((await readTar(none)).names).not.to.include(recordEntryName)
  })

  it('a restore never writes it; it is handed to onRecord', async () => {
    const tar = await collect(createArchive([new LocalSource('files', root, [], context)], { compression: 'tar', signal: new AbortController().signal }))
    const into = join(tmp.dir, 'restored')
    let handed: Buffer | undefined
    await extractTo(Readable.from([tar]), into, { onRecord: (bytes) => (handed = bytes) })
    expect(await readdir(into)).to.deep.equal(['files'])
    expect(parseRecord(handed!).files.length).to.be.greaterThan(200)
    expect(await readFile(join(into, 'files', 'a', 'small.txt'), 'utf8')).to.equal('hello')
  })
})
