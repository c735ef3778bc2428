/**
 * Restore drills (`backup-daemon drill`, `tasks/drillTask`) as real child processes on snapshots written by
 * `run`: a good snapshot's restore is proven (files and a SQLite database against the record); a flipped
 * byte in a stored part fails verify and names the part; a file truncated inside a hand-made archive and a
 * record that disagrees (a row count) fail naming the file and the table. The scratch folder is gone after
 * success, failure and a cancel (SIGINT); a killed drill leaves it, and the next start (the next `drill`,
 * or the daemon's) removes it.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import tar from 'tar-stream'
import { forEachTarEntry } from '../../src/tar/forEachTarEntry.js'
import { loadConfig } from '../../src/config/loadConfig.js'
import { createDaemon } from '../../src/daemon/createDaemon.js'
import { makeTree, tempDir, waitFor } from '../engine/helpers.js'
import { daemonBin, runCli } from '../support/runCli.js'

const Database = createRequire(import.meta.url)('libsql') as new (path: string) => { exec(sql: string): void; close(): void }

const config = `dataDir: ./data
jobs:
  - name: site
    compression: tar
    sources:
      - { type: local, name: tree, path: ./src }
      - { type: sqlite, name: db, path: ./app.db }
    storages: [{ type: local, name: store, path: ./store }]
  - name: zipped
    compression: zip
    sources: [{ type: local, name: tree, path: ./src }]
    storages: [{ type: local, name: zipstore, path: ./zipstore }]
  - name: big
    compression: tar
    sources: [{ type: local, name: big, path: ./bigsrc }]
    storages: [{ type: local, name: bigstore, path: ./bigstore }]
`

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return Buffer.concat(chunks)
}

describe('restore drills: backup-daemon drill (child processes)', function () {
  this.timeout(180_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let file: string
  const drills = () => readdir(join(tmp.dir, 'data', 'drills')).catch(() => [] as string[])
  const drill = (...args: string[]) => runCli(['drill', ...args, '--config', file], { cwd: tmp.dir })
  const backup = async (job: string) => {
    const result = await runCli(['run', job, '--config', file], { cwd: tmp.dir })
    expect(result.code, result.out).to.equal(0)
  }

  /** Replaces the newest stored snapshot of `site` with `mutate(tar)`, its manifest's checksums updated (so verify passes). */
  const rewriteNewest = async (mutate: (bytes: Buffer) => Buffer | Promise<Buffer>) => {
    const dir = join(tmp.dir, 'store', 'site')
    const name = (await readdir(dir))
      .filter((n) => n.endsWith('.manifest.json'))
      .sort()
      .at(-1)!
      .slice(0, -'.manifest.json'.length)
    const bytes = await mutate(await readFile(join(dir, name)))
    await writeFile(join(dir, name), bytes)
    const manifest = JSON.parse(await readFile(join(dir, `${name}.manifest.json`), 'utf8')) as {
      size: number
      sha256: string
      parts: { size: number; sha256: string }[]
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    Object.assign(manifest, { size: bytes.length, sha256 })
    Object.assign(manifest.parts[0]!, { size: bytes.length, sha256 })
    await writeFile(join(dir, `${name}.manifest.json`), JSON.stringify(manifest))
    return name
  }

  before(async () => {
    tmp = await tempDir('bd-drill-')
    await makeTree(join(tmp.dir, 'src'))
    const db = new Database(join(tmp.dir, 'app.db'))
    db.exec('CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT); CREATE TABLE tags (name TEXT)')
    for (let i = 0; i < 37; i++) db.exec(`INSERT INTO posts (title) VALUES ('post ${i}')`)
    db.exec("INSERT INTO tags VALUES ('a'), ('b')")
    db.close()
    await mkdir(join(tmp.dir, 'bigsrc'))
    await writeFile(join(tmp.dir, 'bigsrc', 'large.bin'), randomBytes(4 * 1024 * 1024))
    file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(file, config)
  })
  after(() => tmp.remove())

  it('a good snapshot: restore proven (every file and the SQLite tables against the record); the scratch folder is gone', async () => {
    await backup('site')
    const result = await drill('site')
    expect(result.code, result.out).to.equal(0)
    expect(result.out).to.match(/storage "store": site-.*\.tar: restore proven: \d+ of \d+ file\(s\) .* match the record's sizes and crc32/)
    expect(result.out).to.include('source "db": db/app.sqlite: integrity_check ok, 2 table(s)')
    expect(await drills()).to.deep.equal([])
    const json = await drill('site', '--json')
    const record = json.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; kind?: string; result?: string })
      .find((line) => line.type === 'summary')
    expect(record, json.out).to.include({ kind: 'drill', result: 'success' })
  })

  it('a flipped byte in a stored part: verify fails and the drill names the part; nothing is restored', async () => {
    await backup('site')
    const dir = join(tmp.dir, 'store', 'site')
    const name = (await readdir(dir))
      .filter((n) => n.endsWith('.tar'))
      .sort()
      .at(-1)!
    const bytes = await readFile(join(dir, name))
    bytes[700]! ^= 0x01
    await writeFile(join(dir, name), bytes)
    const result = await drill('site')
    expect(result.code, result.out).to.equal(1)
    expect(result.out).to.include(`storage "store": ${name}: damaged, not restored`)
    expect(result.out).to.match(new RegExp(`${name.replace(/\./g, '\\.')}.*sha256`))
    expect(await drills()).to.deep.equal([])
  })

  it('a file truncated inside a hand-made archive (the record kept): the drill names the file', async () => {
    await backup('site')
    await rewriteNewest(async (bytes) => {
      // Every entry copied as it is, but tree/docs/random.bin cut to half its bytes.
      const pack = tar.pack()
      const out = collect(pack as unknown as AsyncIterable<Buffer>)
      await forEachTarEntry(Readable.from([bytes]), async (header, stream) => {
        let body = await collect(stream as AsyncIterable<Buffer>)
        if (header.name === 'tree/docs/random.bin') body = body.subarray(0, 150_000)
        await new Promise<void>((resolve, reject) =>
          pack.entry({ ...header, type: header.type as 'file' | 'directory' | 'symlink', size: body.length }, body, (err) => (err ? reject(err) : resolve())),
        )
      })
      pack.finalize()
      return out
    })
    const result = await drill('site')
    expect(result.code, result.out).to.equal(1)
    expect(result.out).to.include('tree/docs/random.bin: 150000 bytes restored, the backup recorded 300000')
    expect(await drills()).to.deep.equal([])
  })

  it('a record that disagrees with the database (a row count): the drill names the table', async () => {
    await backup('site')
    await rewriteNewest((bytes) => {
      const text = bytes.toString('latin1')
      expect(text).to.include('"posts":37')
      return Buffer.from(text.replace('"posts":37', '"posts":38'), 'latin1')
    })
    const result = await drill('site')
    expect(result.code, result.out).to.equal(1)
    expect(result.out).to.include('source "db": db/app.sqlite: table "posts" has 37 row(s), the backup recorded 38')
    expect(await drills()).to.deep.equal([])
  })

  it('a zip (no record): it unpacks, and the drill says it is not proven (not a failure) and why', async () => {
    await backup('zipped')
    const result = await drill('zipped')
    expect(result.code, result.out).to.equal(0)
    expect(result.out).to.match(/not proven: the snapshot holds no record \(\.backup-daemon\/record\.json\)/)
    expect(result.out).to.match(/drill success .*\n?/)
    expect(await drills()).to.deep.equal([])
  })

  it('cancelled (SIGINT) while restoring: exit 130, the scratch folder removed', async () => {
    await backup('big')
    const child = spawn(process.execPath, [daemonBin, 'drill', 'big', '--config', file, '--limit-download', '1M'], { cwd: tmp.dir, stdio: 'ignore' })
    const code = new Promise<number | null>((resolve) => child.on('close', resolve))
    await waitFor(async () => (await drills()).length > 0, 60_000, 'the scratch folder')
    child.kill('SIGINT')
    expect(await code).to.equal(130)
    expect(await drills()).to.deep.equal([])
  })

  it('killed mid-drill: the scratch folder stays; the next drill, and the next daemon start, remove such folders', async () => {
    const child = spawn(process.execPath, [daemonBin, 'drill', 'big', '--config', file, '--limit-download', '1M'], { cwd: tmp.dir, stdio: 'ignore' })
    const closed = new Promise((resolve) => child.on('close', resolve))
    await waitFor(async () => (await drills()).length > 0, 60_000, 'the scratch folder')
    child.kill('SIGKILL')
    await closed
    const left = await drills()
    expect(left).to.have.length(1)
    expect(left[0]).to.match(/^drill-\d+-[0-9a-f]{12}$/)
    const next = await drill('big')
    expect(next.code, next.out).to.equal(0)
    expect(next.out).to.include(`removed ${left[0]}, the scratch folder of a drill that did not finish`)
    expect(await drills()).to.deep.equal([])

    // One the daemon finds at its start (a process id that no process has).
    const stale = join(tmp.dir, 'data', 'drills', 'drill-99999999-0123456789ab')
    await mkdir(join(stale, 'files'), { recursive: true })
    const loaded = await loadConfig(file)
    const daemon = await createDaemon(loaded, { schedule: false, persistLogs: false })
    await daemon.stop()
    expect(await drills()).to.deep.equal([])
  })
})
