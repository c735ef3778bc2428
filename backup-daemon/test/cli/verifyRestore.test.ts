/**
 * `backup-daemon verify` and `restore` as real child processes on snapshots written by `run`: a flipped
 * byte is caught and named, a restore reproduces the tree (from the intact storage when the other is
 * damaged), an archive entry escaping the folder is refused, and a SQLite source is restored in place.
 */
import { expect } from 'chai'
import { execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import tar from 'tar-stream'
import { makeTree, tempDir } from '../engine/helpers.js'

const bin = fileURLToPath(new URL('../../bin/backup-daemon.js', import.meta.url))
const run = promisify(execFile)

interface Result {
  code: number | null
  stdout: string
  stderr: string
}

function cli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Result> {
  const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '', ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

const env = { TEST_PASSPHRASE: 'restore-test-passphrase' }

const config = `dataDir: ./data
jobs:
  - name: files
    compression: { type: tar.zst, level: 3 }
    encryption: { type: age, passphrase: env:TEST_PASSPHRASE }
    split: { chunkSize: 65536 }
    sources: [{ type: local, name: tree, path: ./src }]
    storages:
      - { type: local, name: first, path: ./store1 }
      - { type: local, name: second, path: ./store2 }
  - name: db
    compression: tar.gz
    sources: [{ type: sqlite, name: cms, path: ./cms.db }]
    storages: [{ type: local, name: disk, path: ./dbstore }]
`

describe('backup-daemon verify and restore (child processes)', function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let file: string
  before(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
    file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(file, config)
    const result = await cli(['run', 'files', '--config', file], tmp.dir, env)
    expect(result.code, result.stdout + result.stderr).to.equal(0)
  })
  after(() => tmp.remove())

  const snapshotOf = async (store: string, job: string) => {
    const manifest = (await readdir(join(tmp.dir, store, job))).find((n) => n.endsWith('.manifest.json'))!
    return manifest.slice(0, -'.manifest.json'.length)
  }

  it('verify: exit 0 when every part on every storage matches the manifest', async () => {
    const result = await cli(['verify', 'files', '--config', file], tmp.dir, env)
    expect(result.code, result.stderr).to.equal(0)
    expect(result.stdout).to.match(/storage "first": files-.*\.tar\.zst\.age: OK \(\d+ part\(s\)/)
    expect(result.stdout).to.match(/storage "second": .*: OK/)
  })

  it("verify builds its own job only: another job's storage is not reached (no start-up sweep of it)", async () => {
    // The other job's storage: a WebDAV server that counts what reaches it.
    let requests = 0
    const server = createServer((req, res) => (requests++, res.writeHead(503).end()))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const other = join(tmp.dir, 'other-job.yaml')
    const otherJob = `  - name: elsewhere\n    sources: [{ type: local, name: tree, path: ./src }]\n    storages: [{ type: webdav, name: far, url: "http://127.0.0.1:${port}/dav", username: u, password: p }]\n`
    await writeFile(other, config + otherJob)
    try {
      const result = await cli(['verify', 'files', '--config', other], tmp.dir, env)
      expect(result.code, result.stderr).to.equal(0)
      expect(requests, "requests to the other job's storage").to.equal(0)
    } finally {
      server.close()
    }
  })

  it('verify catches one flipped byte and names the part; restore then uses the intact storage', async () => {
    const name = await snapshotOf('store2', 'files')
    const folder = (await readdir(join(tmp.dir, 'store2/files'))).find((n) => n.includes('.parts-'))!
    const parts = (await readdir(join(tmp.dir, 'store2/files', folder))).sort()
    expect(parts.length).to.be.greaterThan(2)
    const victim = join(tmp.dir, 'store2/files', folder, parts[1]!)
    const bytes = await readFile(victim)
    bytes[100]! ^= 0x01
    await writeFile(victim, bytes)

    const verify = await cli(['verify', 'files', name, '--config', file], tmp.dir, env)
    expect(verify.code).to.equal(1)
    expect(verify.stdout).to.match(/storage "first": .*: OK/)
    expect(verify.stdout).to.match(/storage "second": .*: FAILED/)
    expect(verify.stderr).to.include(`${parts[1]}: sha256`)
    const onlySecond = await cli(['verify', 'files', '--storage', 'second', '--config', file], tmp.dir, env)
    expect(onlySecond.code).to.equal(1)

    const restore = await cli(['restore', 'files', name, '--storage', 'second', '--config', file, '--to', join(tmp.dir, 'bad')], tmp.dir, env)
    expect(restore.code).to.equal(1)
    expect(restore.stderr).to.include('no storage holds an intact copy').and.include(`${parts[1]}: sha256`).and.include('the stored copy is damaged')
    expect(await stat(join(tmp.dir, 'bad')).catch(() => undefined), 'nothing unpacked from a damaged copy').to.equal(undefined)

    const good = await cli(['restore', 'files', name, '--config', file, '--to', join(tmp.dir, 'out')], tmp.dir, env)
    expect(good.code, good.stderr).to.equal(0)
    expect(good.stdout).to.include(`restoring from storage "first": ${name}, each part checked as it is read`)
    await run('diff', ['-r', '--no-dereference', join(tmp.dir, 'src'), join(tmp.dir, 'out/tree')])
    bytes[100]! ^= 0x01
    await writeFile(victim, bytes)
  })

  it('a restore reads once, each part checked as it comes: a damaged first copy is dropped unmoved, the next one restores', async () => {
    const name = await snapshotOf('store1', 'files')
    const folder = (await readdir(join(tmp.dir, 'store1/files'))).find((n) => n.includes('.parts-'))!
    const parts = (await readdir(join(tmp.dir, 'store1/files', folder))).sort()
    const victim = join(tmp.dir, 'store1/files', folder, parts.at(-1)!)
    const bytes = await readFile(victim)
    bytes[bytes.length - 10]! ^= 0x01
    await writeFile(victim, bytes)
    try {
      const restore = await cli(['restore', 'files', name, '--config', file, '--to', join(tmp.dir, 'second-copy')], tmp.dir, env)
      expect(restore.code, restore.stderr).to.equal(0)
      expect(restore.stdout)
        .to.include(`storage "first": ${name}: FAILED: `)
        .and.include(`${parts.at(-1)}: sha256`)
      expect(restore.stdout).to.include(`restoring from storage "second": ${name}, each part checked as it is read`)
      await run('diff', ['-r', '--no-dereference', join(tmp.dir, 'src'), join(tmp.dir, 'second-copy/tree')])
    } finally {
      bytes[bytes.length - 10]! ^= 0x01
      await writeFile(victim, bytes)
    }
  })

  it('restore refuses entries that would escape the folder', async () => {
    // A hand-made snapshot (valid manifest, good checksums) whose tar holds "../escaped.txt".
    const pack = tar.pack()
    pack.entry({ name: 'tree/ok.txt' }, 'fine\n')
    pack.entry({ name: '../escaped.txt' }, 'evil\n')
    pack.finalize()
    const chunks: Buffer[] = []
    for await (const chunk of pack) chunks.push(chunk as Buffer)
    const data = gzipSync(Buffer.concat(chunks))
    const name = 'evil-2026-01-01T00-00-00-000Z.tar.gz'
    const sha256 = createHash('sha256').update(data).digest('hex')
    await mkdir(join(tmp.dir, 'evilstore/evil'), { recursive: true })
    await writeFile(join(tmp.dir, 'evilstore/evil', name), data)
    const manifest = {
      version: 1,
      job: 'evil',
      name,
      compression: 'tar.gz',
      createdAt: '2026-01-01T00:00:00.000Z',
      size: data.length,
      sha256,
      chunkSize: null,
      parts: [{ key: `evil/${name}`, size: data.length, sha256 }],
    }
    await writeFile(join(tmp.dir, 'evilstore/evil', `${name}.manifest.json`), JSON.stringify(manifest))
    const evilConfig = join(tmp.dir, 'evil.yaml')
    await writeFile(
      evilConfig,
      `dataDir: ./data\njobs:\n  - name: evil\n    sources: [{ type: local, name: tree, path: ./src }]\n    storages: [{ type: local, name: disk, path: ./evilstore }]\n`,
    )
    await mkdir(join(tmp.dir, 'jail'))
    const result = await cli(['restore', 'evil', name, '--config', evilConfig, '--to', join(tmp.dir, 'jail/inside')], tmp.dir)
    expect(result.code).to.equal(1)
    expect(result.stderr).to.include('refusing archive entry "../escaped.txt"')
    expect(await stat(join(tmp.dir, 'jail/escaped.txt')).catch(() => undefined)).to.equal(undefined)
  })

  it('restore --into-database puts a sqlite source back in place (after --force), verified first', async () => {
    interface Db {
      exec(sql: string): void
      prepare(sql: string): { get(): Record<string, unknown> }
      close(): void
    }
    const Database = createRequire(import.meta.url)('libsql') as new (path: string) => Db
    const path = join(tmp.dir, 'cms.db')
    const db = new Database(path)
    db.exec("CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO posts (title) SELECT 'post ' || value FROM generate_series(1, 500)")
    db.close()
    const backup = await cli(['run', 'db', '--config', file], tmp.dir, env)
    expect(backup.code, backup.stdout).to.equal(0)
    const name = await snapshotOf('dbstore', 'db')
    const damage = new Database(path)
    damage.exec('DELETE FROM posts WHERE id > 10')
    damage.close()

    const refused = await cli(['restore', 'db', name, '--config', file, '--into-database'], tmp.dir, env)
    expect(refused.code).to.equal(1)
    expect(refused.stderr).to.include('exists')
    const restored = await cli(['restore', 'db', name, '--config', file, '--into-database', '--force'], tmp.dir, env)
    expect(restored.code, restored.stdout + restored.stderr).to.equal(0)
    expect(restored.stdout).to.include('restored source "cms"')
    const check = new Database(path)
    expect(check.prepare('SELECT count(*) AS n FROM posts').get()).to.deep.equal({ n: 500 })
    check.close()
    const usage = await cli(['restore', 'db', name, '--config', file], tmp.dir, env)
    expect(usage.code).to.equal(2)
    await rm(join(tmp.dir, 'cms.db'), { force: true })
  })
})
