import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs'
import { symlinkSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { createApp } from '../../src/server/createApp.js'
import { realEngine, type RealEngine } from '../api/support/realEngine.js'
import type { DaemonProcess } from '../api/support/daemonProcess.js'
import { loginCookie, postJson } from '../api/support/requests.js'
import { openSse, type SseClient, type SseFrame } from '../api/support/sseClient.js'
import { testConfig } from '../api/support/testConfig.js'
import { validateSchema } from '../api/support/validateSchema.js'
import { requirePostgresBin, startPostgresCluster, type PostgresCluster } from '../sources/support/postgresCluster.js'
import { ended, restoreServer, serveConfig, writeRandomTree, type TaskBody, type TaskClient } from './support.js'

const password = 'restore-tasks-password'

/** Every file below `dir` (relative path -> sha256 of its bytes), links as `-> target`. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name)
      if (entry.isDirectory()) walk(path)
      else out[relative(dir, path)] = createHash('sha256').update(readFileSync(path)).digest('hex')
    }
  }
  walk(dir)
  return out
}

const leftovers = (parent: string) => readdirSync(parent).filter((name) => name.includes('.restore-'))

/** The task stream's frames until it closes (keep-alive comments left out). */
async function framesToClose(stream: SseClient, onFrame: (frame: SseFrame) => void | Promise<void> = () => {}): Promise<SseFrame[]> {
  const frames: SseFrame[] = []
  for (let frame = await stream.next(); frame; frame = await stream.next()) {
    if (!frame.event) continue
    frames.push(frame)
    await onFrame(frame)
  }
  return frames
}

describe('tasks: restore and verify from the API (real daemon, files, PostgreSQL)', function () {
  this.timeout(240_000)
  let dir: string
  let pg: PostgresCluster
  let daemon: DaemonProcess | undefined
  let api: TaskClient
  let root: string
  const snapshots: Record<string, string> = {}
  let expectedRows: string

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bd-tasks-'))
    const pgBin = await requirePostgresBin()
    pg = await startPostgresCluster(pgBin)
    await pg.sql('postgres', 'CREATE DATABASE shop')
    await pg.sql('postgres', 'CREATE DATABASE shop_copy')
    await pg.sql('shop', "CREATE TABLE orders (id int PRIMARY KEY, item text); INSERT INTO orders SELECT g, 'item ' || g FROM generate_series(1, 2000) g")
    // A second table: a restore with overwrite drops its key before it reaches `orders` (the cancel test holds it there).
    await pg.sql('shop', "CREATE TABLE zz_notes (id int PRIMARY KEY, note text); INSERT INTO zz_notes VALUES (1, 'from the source')")
    expectedRows = await pg.sql('shop', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")

    const site = join(dir, 'site')
    mkdirSync(join(site, 'nested', 'deeper'), { recursive: true })
    writeFileSync(join(site, 'hello.txt'), 'hello from the source\n')
    writeFileSync(join(site, 'nested', 'random.bin'), randomBytes(300 * 1024))
    writeFileSync(join(site, 'nested', 'deeper', 'note.md'), '# note\n')
    // Many files: the restore of this one takes long enough to be cancelled while it writes.
    const big = join(dir, 'big')
    writeRandomTree(big, 40, 100)
    root = join(dir, 'restore-root')
    mkdirSync(root)
    mkdirSync(join(dir, 'outside'))
    const storage = (name: string) => [{ type: 'local', name: 'disk', path: join(dir, 'storage', name) }]
    const config = {
      dataDir: join(dir, 'data'),
      server: await restoreServer(password),
      restore: {
        roots: [root],
        databases: {
          copy: { type: 'postgresql', database: 'shop_copy', host: pg.socketDir, port: pg.port, user: pg.superuser, password: 'env:TASKS_PG_PASSWORD' },
          gone: { type: 'postgresql', database: 'no_such_db', host: pg.socketDir, port: pg.port, user: pg.superuser, password: 'env:TASKS_PG_PASSWORD' },
          // Another kind's target: a PostgreSQL dump is refused there.
          file: { type: 'sqlite', path: join(dir, 'copy.db') },
        },
      },
      jobs: [
        { name: 'files', compression: 'tar.gz', sources: [{ type: 'local', name: 'site', path: site }], storages: storage('files') },
        { name: 'damaged', compression: 'tar.zst', sources: [{ type: 'local', name: 'site', path: site }], storages: storage('damaged') },
        { name: 'plain', sources: [{ type: 'local', name: 'site', path: site }], storages: storage('plain') },
        { name: 'big', sources: [{ type: 'local', name: 'big', path: big }], storages: storage('big') },
        {
          name: 'db',
          compression: 'tar.gz',
          sources: [
            { type: 'postgresql', name: 'pg', database: 'shop', host: pg.socketDir, port: pg.port, user: pg.superuser, pgDump: join(pg.bin, 'pg_dump') },
            { type: 'local', name: 'site', path: site },
          ],
          storages: storage('db'),
        },
      ],
    }
    process.env.TASKS_PG_PASSWORD = pg.password
    ;({ daemon, api } = await serveConfig(dir, config, password))
    for (const job of ['files', 'damaged', 'plain', 'big', 'db']) snapshots[job] = await api.backup(job)
  })

  after(async () => {
    if (daemon) expect(await daemon.stop(), daemon.output()).to.equal(0)
    await pg?.stop()
    delete process.env.TASKS_PG_PASSWORD
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const start = async (job: string, action: 'verify' | 'restore', body?: unknown) => {
    const res = await api.post(`/jobs/${job}/backups/${encodeURIComponent(snapshots[job]!)}/${action}`, body)
    return { status: res.status, body: (await res.json()) as { task: TaskBody; detail?: string; type?: string } }
  }
  const jobLog = async (job: string) => ((await (await api.get(`/jobs/${job}/logs?tail=200`)).json()) as { logs: string[] }).logs.join('\n')

  it('streams a task live on /tasks/current/progress: 204 before the first, progress frames, the end with its record, then closes', async () => {
    const url = (job: string) => `${daemon!.url}/api/v1/jobs/${job}/tasks/current/progress`
    const cookie = { cookie: await api.cookie() }
    expect((await api.get('/jobs/files/tasks/current/progress')).status).to.equal(204)
    const unknown = await api.get('/jobs/ghost/tasks/current/progress')
    expect(unknown.status).to.equal(404)
    expect(unknown.headers.get('content-type')).to.include('application/problem+json')
    expect((await fetch(url('files'))).status).to.equal(401)

    const started = await start('files', 'verify')
    expect(started.status).to.equal(202)
    const stream = await openSse(url('files'), cookie)
    expect(stream.response.status).to.equal(200)
    expect(stream.response.headers.get('content-type')).to.match(/text\/event-stream/)
    const frames = await framesToClose(stream)
    const doc = await (await api.get('/openapi')).json()
    const schemas = doc.components.schemas
    expect(doc.paths).to.have.property('/jobs/{name}/tasks/current/progress')
    expect(frames.map((f) => f.event).at(-1)).to.equal('end')
    expect(frames.filter((f) => f.event === 'end')).to.have.length(1)
    const progress = frames.filter((f) => f.event === 'progress').map((f) => JSON.parse(f.data))
    // The current state comes first, even when the verify ended before the stream opened (then only the end).
    for (const frame of progress) {
      expect(validateSchema(frame, { $ref: '#/components/schemas/RunProgress' }, schemas)).to.deep.equal([])
      expect(frame.kind).to.equal('verify')
    }
    for (let i = 1; i < progress.length; i++) expect(progress[i].bytesRead).to.be.at.least(progress[i - 1].bytesRead)
    const record = JSON.parse(frames.at(-1)!.data)
    expect(validateSchema(record, { $ref: '#/components/schemas/RunRecord' }, schemas)).to.deep.equal([])
    expect(record).to.include({ id: started.body.task.id, job: 'files', kind: 'verify', result: 'success', snapshot: snapshots.files })
    const size = statSync(join(dir, 'storage/files/files', snapshots.files!)).size
    expect(record.bytesRead).to.equal(size)
    const { runs } = (await (await api.get('/jobs/files/history?limit=1')).json()) as { runs: unknown[] }
    expect(runs).to.deep.equal([record])
    // An ended task: its end at once, then the stream closes.
    const again = await openSse(url('files'), cookie)
    const late = await framesToClose(again)
    expect(late.map((f) => [f.event, JSON.parse(f.data).id])).to.deep.equal([['end', record.id]])
  })

  it('verifies a good snapshot: 202, then success with progress up to the snapshot size, in the log and the OpenAPI document', async () => {
    const started = await start('files', 'verify')
    expect(started.status).to.equal(202)
    expect(started.body.task).to.include({ kind: 'verify', job: 'files', snapshot: snapshots.files, status: 'running' })
    const task = await api.waitTask('files', ended)
    expect(task.status, task.error).to.equal('success')
    expect(task.id).to.equal(started.body.task.id)
    expect(task.summary).to.include('1 copy intact (disk)')
    const size = statSync(join(dir, 'storage/files/files', snapshots.files!)).size
    expect(task.progress).to.include({ kind: 'verify', bytesRead: size, totalBytes: size, percent: 100 })
    expect(await jobLog('files')).to.match(/\[verify\] storage "disk": \S+: OK \(1 part\(s\), \d+ bytes; sha256 of every part matches the manifest\)/)
    const doc = await (await api.get('/openapi')).json()
    const snapshotPaths = ['/jobs/{name}/backups/{filename}/verify', '/jobs/{name}/backups/{filename}/restore']
    const paths = [...snapshotPaths, '/jobs/{name}/tasks/current', '/jobs/{name}/tasks/current/cancel']
    for (const path of paths) {
      expect(doc.paths, path).to.have.property(path)
    }
    expect(validateSchema({ task }, { $ref: '#/components/schemas/TaskResponse' }, doc.components.schemas)).to.deep.equal([])
  })

  it('verify fails on a snapshot whose bytes were changed (same size), naming the part; a manifest-less one is read to its end', async () => {
    const file = join(dir, 'storage/damaged/damaged', snapshots.damaged!)
    const fd = openSync(file, 'r+')
    const byte = Buffer.alloc(1)
    readSync(fd, byte, 0, 1, 100)
    writeSync(fd, Buffer.from([byte[0]! ^ 0xff]), 0, 1, 100)
    closeSync(fd)
    expect((await start('damaged', 'verify')).status).to.equal(202)
    const task = await api.waitTask('damaged', ended)
    expect(task.status).to.equal('failed')
    expect(task.error).to.include(`${snapshots.damaged}: sha256`).and.include('manifest says')
    expect(await jobLog('damaged')).to.include('[verify] failed: 1 of 1 copy is damaged')
    // A restore of it is refused at its verify step: nothing is written.
    const restored = await start('damaged', 'restore', { target: { kind: 'files', path: join(root, 'from-damaged') } })
    expect(restored.status).to.equal(202)
    const failed = await api.waitTask('damaged', ended)
    expect(failed).to.include({ kind: 'restore', status: 'failed' })
    expect(failed.error).to.include('no storage holds an intact copy')
    expect(existsSync(join(root, 'from-damaged'))).to.equal(false)

    // Without a manifest (the original service's snapshots) the archive must read to its end.
    // (the original service's snapshots: its name form, no manifest next to it).
    rmSync(join(dir, 'storage/plain/plain', `${snapshots.plain}.manifest.json`))
    renameSync(join(dir, 'storage/plain/plain', snapshots.plain!), join(dir, 'storage/plain/plain', 'plain-20261120-030000.tar'))
    snapshots.plain = 'plain-20261120-030000.tar'
    const listed = (await (await api.get('/jobs/plain/backups')).json()) as { backups: { name: string; checksummed: boolean }[] }
    expect(listed.backups[0]).to.include({ name: snapshots.plain, checksummed: false })
    expect((await start('plain', 'verify')).status).to.equal(202)
    const plain = await api.waitTask('plain', ended)
    expect(plain.status, plain.error).to.equal('success')
    expect(await jobLog('plain')).to.match(
      /\[verify\] storage "disk": \S+: OK \(1 part\(s\), \d+ bytes; no checksum to compare \(not written by this daemon\): \d+ entries read to the end\)/,
    )
  })

  it('restores files into a new folder inside a root, byte for byte, and merges into an existing one only as asked', async () => {
    const target = join(root, 'site-copy')
    const started = await start('files', 'restore', { target: { kind: 'files', path: target } })
    expect(started.status, started.body.detail).to.equal(202)
    expect(started.body.task).to.include({ kind: 'restore', target })
    const task = await api.waitTask('files', ended)
    expect(task.status, task.error).to.equal('success')
    expect(task.progress).to.include({ phase: 'finishing', filesRead: 6 })
    expect(tree(join(target, 'site'))).to.deep.equal(tree(join(dir, 'site')))
    expect(leftovers(root)).to.deep.equal([])
    expect(await jobLog('files')).to.include(`[restore] succeeded: restored 3 file(s)`)

    // Into an existing folder: a file the snapshot also has is a clash; nothing is written without overwrite.
    writeFileSync(join(target, 'site', 'hello.txt'), 'changed locally\n')
    writeFileSync(join(target, 'mine.txt'), 'not in the snapshot\n')
    const before = tree(target)
    expect((await start('files', 'restore', { target: { kind: 'files', path: target } })).status).to.equal(202)
    const clash = await api.waitTask('files', ended)
    expect(clash.status).to.equal('failed')
    expect(clash.error).to.include('site/hello.txt (exists)').and.include('nothing was restored')
    expect(tree(target)).to.deep.equal(before)
    expect(leftovers(root)).to.deep.equal([])
    expect((await start('files', 'restore', { target: { kind: 'files', path: target, overwrite: true } })).status).to.equal(202)
    const replaced = await api.waitTask('files', ended)
    expect(replaced.status, replaced.error).to.equal('success')
    expect(readFileSync(join(target, 'site', 'hello.txt'), 'utf8')).to.equal('hello from the source\n')
    expect(readFileSync(join(target, 'mine.txt'), 'utf8')).to.equal('not in the snapshot\n')
  })

  it("restores a PostgreSQL source's dump into the configured database: its rows equal the source's", async () => {
    expect(await pg.sql('shop_copy', "SELECT count(*) FROM pg_tables WHERE tablename = 'orders'")).to.equal('0')
    const started = await start('db', 'restore', { target: { kind: 'database', source: 'pg', database: 'copy' } })
    expect(started.status, started.body.detail).to.equal(202)
    expect(started.body.task.target).to.equal('database copy')
    const task = await api.waitTask('db', ended)
    expect(task.status, task.error).to.equal('success')
    expect(task.summary).to.include('restored source "pg" into postgresql database shop_copy')
    expect(await pg.sql('shop_copy', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")).to.equal(expectedRows)
    // The source database is untouched, and the password is in no answer or log.
    expect(await pg.sql('shop', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")).to.equal(expectedRows)
    const log = await jobLog('db')
    expect(log).to.include('[restore] restoring source "pg" (postgresql)')
    expect(log + JSON.stringify(task)).not.to.include(pg.password)

    // Again without overwrite: the table exists, pg_restore fails in its one transaction, the data stays.
    await pg.sql('shop_copy', "UPDATE orders SET item = 'kept' WHERE id = 1")
    const kept = await pg.sql('shop_copy', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")
    expect((await start('db', 'restore', { target: { kind: 'database', source: 'pg', database: 'copy' } })).status).to.equal(202)
    const again = await api.waitTask('db', ended)
    expect(again.status).to.equal('failed')
    expect(again.error).to.include('pg_restore').and.include('the database was left as it was')
    // The cause pg_restore gave, not the broken pipe it left behind (issue 37).
    expect(again.error).to.include('relation "orders" already exists').and.not.include('EPIPE')
    expect(await pg.sql('shop_copy', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")).to.equal(kept)
    // A database that does not exist: named by the server's own words.
    expect((await start('db', 'restore', { target: { kind: 'database', source: 'pg', database: 'gone' } })).status).to.equal(202)
    const gone = await api.waitTask('db', ended)
    expect(gone.status).to.equal('failed')
    expect(gone.error).to.include('database "no_such_db" does not exist').and.not.include('EPIPE')
  })

  it('cancels a PostgreSQL restore held inside pg_restore: the stream shows it, the target database is unchanged', async () => {
    // The target as a user left it: other rows than the source's, and both tables with their keys.
    await pg.sql('shop_copy', 'DROP TABLE IF EXISTS orders; DROP TABLE IF EXISTS zz_notes')
    await pg.sql('shop_copy', "CREATE TABLE orders (id int PRIMARY KEY, item text); INSERT INTO orders SELECT g, 'local ' || g FROM generate_series(1, 50) g")
    await pg.sql('shop_copy', "CREATE TABLE zz_notes (id int PRIMARY KEY, note text); INSERT INTO zz_notes VALUES (1, 'local note')")
    const state = () =>
      pg.sql(
        'shop_copy',
        "SELECT (SELECT count(*) || ' ' || md5(string_agg(item, ',' ORDER BY id)) FROM orders), (SELECT string_agg(note, ',') FROM zz_notes), " +
          "(SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint WHERE contype = 'p' AND conrelid::regclass::text IN ('orders', 'zz_notes'))",
      )
    const before = await state()
    expect(before).to.equal(`50 ${await pg.sql('shop_copy', "SELECT md5(string_agg(item, ',' ORDER BY id)) FROM orders")}|local note|orders_pkey,zz_notes_pkey`)

    // A session holds a lock on `orders`: pg_restore --clean drops zz_notes' key, then waits on orders' key, inside its one transaction.
    const holder = spawn(join(pg.bin, 'psql'), ['-X', '-q', '-A', '-t', '-h', pg.socketDir, '-p', String(pg.port), '-U', pg.superuser, '-d', 'shop_copy'])
    let held = ''
    const locked = new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) => {
        held += chunk.toString()
        if (held.includes('locked')) resolve()
      })
      holder.on('exit', (code) => reject(new Error(`psql exited ${code}: ${held}`)))
    })
    holder.stdin.write("BEGIN; LOCK TABLE orders IN ACCESS SHARE MODE; SELECT 'locked';\n")
    await locked
    const release = new Promise<void>((resolve) => holder.on('exit', () => resolve()))
    try {
      const started = await start('db', 'restore', { target: { kind: 'database', source: 'pg', database: 'copy', overwrite: true } })
      expect(started.status, started.body.detail).to.equal(202)
      const stream = await openSse(`${daemon!.url}/api/v1/jobs/db/tasks/current/progress`, { cookie: await api.cookie() })
      // pg_restore's backend: waiting for the lock on orders while it holds the one it took on zz_notes.
      const blocked = async () => {
        for (;;) {
          const waiting = await pg.sql(
            'shop_copy',
            "SELECT a.pid FROM pg_stat_activity a WHERE a.application_name = 'pg_restore' AND a.wait_event_type = 'Lock' AND EXISTS " +
              "(SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.granted AND l.mode = 'AccessExclusiveLock' AND l.relation = 'zz_notes'::regclass)",
          )
          if (waiting) return waiting
          const task = (await (await api.get('/jobs/db/tasks/current')).json()) as { task: TaskBody }
          if (ended(task.task)) throw new Error(`the restore ended before it reached pg_restore's lock: ${JSON.stringify(task.task)}`)
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
      let cancelled = false
      const frames = await framesToClose(stream, async (frame) => {
        const progress = frame.event === 'progress' ? (JSON.parse(frame.data) as TaskBody['progress'] & { currentSource?: string }) : undefined
        if (cancelled || progress?.phase !== 'restoring') return
        cancelled = true
        await blocked()
        expect(progress).to.include({ kind: 'restore', currentSource: 'pg' })
        const cancel = await api.post('/jobs/db/tasks/current/cancel')
        expect(cancel.status).to.equal(200)
      })
      expect(cancelled, 'the stream showed the restore writing').to.equal(true)
      const record = JSON.parse(frames.at(-1)!.data)
      expect(frames.at(-1)!.event).to.equal('end')
      expect(record).to.include({ kind: 'restore', result: 'cancelled', error: 'cancelled', target: 'database copy' })
      expect(record.bytesRead).to.be.greaterThan(0)
      const task = await api.waitTask('db', ended)
      expect(task).to.include({ status: 'cancelled', id: started.body.task.id })
      expect(task.progress).to.not.have.property('etaSeconds')
      expect(task.progress!.percent).to.be.below(100)
    } finally {
      // Let go of the lock: the killed pg_restore's transaction can now end, rolled back.
      holder.stdin.end('ROLLBACK;\n')
      await release
    }
    for (;;) {
      if ((await pg.sql('shop_copy', "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pg_restore'")) === '0') break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(await state()).to.equal(before)
    expect(await jobLog('db'))
      .to.include('[restore] cancel requested')
      .and.include('[restore] cancelled: cancelled')
  })

  it('refuses bad requests with a Problem and writes nothing', async () => {
    symlinkSync(join(dir, 'outside'), join(root, 'escape'))
    // What the restore root holds now (other tests may have restored into it): the refusals add nothing.
    const rootBefore = readdirSync(root).sort()
    const refused = async (job: string, action: 'verify' | 'restore', body: unknown, status: number, detail: RegExp, snapshot = snapshots[job]!) => {
      const res = await api.post(`/jobs/${job}/backups/${encodeURIComponent(snapshot)}/${action}`, body)
      expect(res.status, JSON.stringify(body)).to.equal(status)
      expect(res.headers.get('content-type')).to.include('application/problem+json')
      const problem = (await res.json()) as { detail: string; status: number }
      expect(problem.status).to.equal(status)
      expect(problem.detail).to.match(detail)
    }
    const files = (path: string) => ({ target: { kind: 'files', path } })
    await refused('files', 'restore', files(join(dir, 'outside', 'x')), 400, /outside the allowed restore roots/)
    await refused('files', 'restore', files(`${root}/../outside/x`), 400, /"\." and "\.\." steps are not allowed/)
    await refused('files', 'restore', files(join(root, 'escape', 'x')), 400, /outside the allowed restore roots/)
    await refused('files', 'restore', files(root), 400, /outside the allowed restore roots/)
    await refused('files', 'restore', files('relative/path'), 400, /absolute path/)
    await refused('files', 'restore', files(join(root, 'missing-parent', 'x')), 400, /parent folder does not exist/)
    await refused('files', 'restore', files(join(root, 'x')), 404, /not found/, 'files-19990101-000000.tar.gz')
    await refused('files', 'verify', undefined, 404, /not found/, 'nope.tar')
    const production = { target: { kind: 'database', source: 'pg', database: 'production' } }
    await refused('db', 'restore', production, 400, /no database "production" in restore\.databases \(configured: copy, gone, file\)/)
    // The kinds differ (the source's kind declares the targets it goes into); refused twice alike: the
    // first refusal left no lock on the target behind (a held one would answer 409).
    const otherKind = { target: { kind: 'database', source: 'pg', database: 'file' } }
    await refused('db', 'restore', otherKind, 400, /source "pg" is a postgresql source; restore\.databases\.file is sqlite/)
    await refused('db', 'restore', otherKind, 400, /source "pg" is a postgresql source; restore\.databases\.file is sqlite/)
    expect(existsSync(join(dir, 'copy.db'))).to.equal(false)
    await refused('db', 'restore', { target: { kind: 'database', source: 'site', database: 'copy' } }, 400, /not a database source/)
    await refused('db', 'restore', { target: { kind: 'database', source: 'ghost', database: 'copy' } }, 400, /no source "ghost"/)
    await refused('files', 'restore', { target: { kind: 'tape' } }, 400, /./)
    expect(readdirSync(join(dir, 'outside'))).to.deep.equal([])
    expect(readdirSync(root).sort()).to.deep.equal(rootBefore)
    // Without a session: 401.
    expect((await fetch(`${daemon!.url}/api/v1/jobs/files/backups/${snapshots.files}/verify`, { method: 'POST' })).status).to.equal(401)
  })

  it('cancels a restore while it writes: the target is left as it was, a second task meanwhile is refused with 409', async () => {
    const target = join(root, 'big-existing')
    mkdirSync(target)
    writeFileSync(join(target, 'keep.txt'), 'keep me\n')
    const before = tree(target)
    const started = await start('big', 'restore', { target: { kind: 'files', path: target } })
    expect(started.status, started.body.detail).to.equal(202)
    // Wait until it is writing files (its progress says so), then cancel.
    const writing = await api.waitTask('big', (task) => ended(task) || (task.progress?.phase === 'restoring' && task.progress.filesRead > 0))
    expect(writing.status, 'the restore ended before it could be cancelled').to.equal('running')
    const second = await start('big', 'verify')
    expect(second.status).to.equal(409)
    expect(second.body.detail).to.include('already has a restore or verify task running')
    const secondRestore = await start('big', 'restore', { target: { kind: 'files', path: join(root, 'second') } })
    expect(secondRestore.status).to.equal(409)
    expect(existsSync(join(root, 'second'))).to.equal(false)
    const backup = await api.post('/jobs/big/run')
    expect(backup.status).to.equal(409)
    const cancel = await api.post('/jobs/big/tasks/current/cancel')
    expect(cancel.status).to.equal(200)
    expect(((await cancel.json()) as { task: TaskBody }).task.status).to.equal('cancelling')
    const task = await api.waitTask('big', ended)
    expect(task.status).to.equal('cancelled')
    expect(task.progress!.filesRead).to.be.greaterThan(0)
    expect(tree(target)).to.deep.equal(before)
    expect(leftovers(root)).to.deep.equal([])
    expect(await jobLog('big'))
      .to.include('[restore] cancel requested')
      .and.include('[restore] cancelled: cancelled')
    expect((await api.post('/jobs/big/tasks/current/cancel')).status).to.equal(409)
  })
})

describe('tasks: permission', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real.close())

  it('answers 403 Problems for verify, restore and cancel while server.permissions.allowRestore is off (the default)', async () => {
    const snapshot = await real.runJob('nightly')
    const app = createApp({ config: testConfig(), engine: real.engine, tasks: real.tasks })
    const cookie = await loginCookie(app)
    for (const [path, body] of [
      [`/api/v1/jobs/nightly/backups/${snapshot}/verify`, {}],
      [`/api/v1/jobs/nightly/backups/${snapshot}/restore`, { target: { kind: 'files', path: '/tmp/x' } }],
      ['/api/v1/jobs/nightly/tasks/current/cancel', {}],
    ] as const) {
      const res = await postJson(app, path, body, { cookie })
      expect(res.status, path).to.equal(403)
      expect(((await res.json()) as { detail: string }).detail).to.include('server.permissions.allowRestore')
    }
  })
})
