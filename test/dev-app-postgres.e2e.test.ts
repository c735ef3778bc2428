/**
 * The dev-app on PostgreSQL, as a user runs it: a throwaway cluster (Debian's server binaries) on a free
 * port, `DATABASE_URI=postgres://… npm start`, content added through the CMS's REST API, the backup
 * daemon's `cms` job run through its API, and its pg_dump restored (the daemon's `restore` command, then
 * `pg_restore`) into a fresh database that must hold the same rows as the live one.
 */
import { expect } from 'chai'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import sharp from 'sharp'
import { requirePostgresBin, startPostgresCluster, type PostgresCluster } from '../backup-daemon/test/sources/support/postgresCluster.js'
import { startDevApp, type RunningDevApp } from './support/devApp.js'
import { sha256, walk } from './support/files.js'
import { freePort } from './support/freePort.js'
import { waitFor } from './support/waitFor.js'

const run = promisify(execFile)
const repoRoot = new URL('..', import.meta.url).pathname

// A password that must be percent-encoded in the URI: the daemon's job must decode it, and never show it.
const cmsRole = 'cms_owner'
const cmsPassword = 'p@ss:w/rd%#?-e2e'

describe('dev-app end to end on PostgreSQL (DATABASE_URI=postgres://… npm start)', function () {
  // The first start builds the admin panel: up to twenty minutes on a loaded two-core machine.
  this.timeout(30 * 60_000)
  let pg: PostgresCluster | undefined
  let app: RunningDevApp | undefined
  // Ours, so that a start that fails still leaves nothing behind.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dev-app-pg-e2e-'))
  let token: string
  let cookie: string
  const uploaded = { alt: 'Uploaded over REST to the PostgreSQL CMS', sha256: '' }
  const postTitle = 'A post stored in PostgreSQL'

  before(async () => {
    const bin = await requirePostgresBin()
    pg = await startPostgresCluster(bin)
    // Not a superuser: the CMS creates its own database on first connect (CREATEDB) and owns its tables.
    await pg.sql('postgres', `CREATE ROLE ${cmsRole} LOGIN CREATEDB PASSWORD '${cmsPassword.replace(/'/g, "''")}'`)
    const uri = `postgres://${cmsRole}:${encodeURIComponent(cmsPassword)}@127.0.0.1:${pg.port}/cms`
    const ports = { cms: await freePort(), daemon: await freePort(), emulator: await freePort() }
    app = await startDevApp({ ports, dataDir, readyTimeoutMs: 25 * 60_000, env: { DATABASE_URI: uri } })
  })

  after(async function () {
    await app?.stop()
    rmSync(dataDir, { recursive: true, force: true })
    await pg?.stop()
  })

  it('creates the schema and the first admin user in a database that did not exist', async function () {
    expect(app!.output()).to.contain('(database: PostgreSQL)')
    expect(await pg!.sql('postgres', "SELECT datname FROM pg_database WHERE datname = 'cms'")).to.equal('cms')
    expect(await pg!.sql('cms', "SELECT tableowner FROM pg_tables WHERE schemaname = 'public' AND tablename = 'posts'")).to.equal(cmsRole)
    expect(await pg!.sql('cms', 'SELECT email FROM users')).to.equal(app!.credentials.adminEmail)
    const response = await fetch(`${app!.cmsUrl}/api/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: app!.credentials.adminEmail, password: app!.credentials.adminPassword }),
    })
    expect(response.status).to.equal(200)
    token = ((await response.json()) as { token: string }).token
    expect(token).to.be.a('string')
  })

  it('stores an image uploaded through the REST API and a post that uses it', async function () {
    const bytes = await sharp({ create: { width: 640, height: 400, channels: 3, background: '#16a34a' } })
      .png()
      .toBuffer()
    uploaded.sha256 = sha256(bytes)
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'postgres-e2e.png')
    form.append('_payload', JSON.stringify({ alt: uploaded.alt }))
    const created = await fetch(`${app!.cmsUrl}/api/images`, { method: 'POST', headers: { authorization: `JWT ${token}` }, body: form })
    const image = (await created.json()) as { doc: { id: number; url: string } }
    expect(created.status, JSON.stringify(image)).to.equal(201)
    const served = Buffer.from(await (await fetch(new URL(image.doc.url, app!.cmsUrl))).arrayBuffer())
    expect(sha256(served)).to.equal(uploaded.sha256)

    const post = await fetch(`${app!.cmsUrl}/api/posts`, {
      method: 'POST',
      headers: { authorization: `JWT ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: postTitle,
        slug: 'postgres-e2e',
        heroImage: image.doc.id,
        _status: 'published',
        gallery: [{ image: image.doc.id, caption: 'café ✓' }],
      }),
    })
    expect(post.status, await post.clone().text()).to.equal(201)
    // The rows are in PostgreSQL, in the tables Payload's push created.
    expect(await pg!.sql('cms', `SELECT hero_image_id FROM posts WHERE slug = 'postgres-e2e'`)).to.equal(String(image.doc.id))
    expect(await pg!.sql('cms', `SELECT caption FROM posts_gallery`)).to.equal('café ✓')
  })

  it("backs the database up with the daemon's cms job (pg_dump; the password in no log, response or config view)", async function () {
    const api = `${app!.daemonUrl}/api/v1`
    const login = await fetch(`${api}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: app!.credentials.daemonUsername, password: app!.credentials.daemonPassword }),
    })
    expect(login.status).to.equal(200)
    cookie = login.headers.get('set-cookie')!.split(';')[0]!
    const get = async (route: string) => (await fetch(`${api}${route}`, { headers: { cookie } })).text()

    const config = await get('/jobs/cms/config')
    expect(config).to.contain('postgresql')
    const started = await fetch(`${api}/jobs/cms/run`, { method: 'POST', headers: { cookie } })
    expect(started.status).to.equal(202)
    let status: { status: string; lastResult?: { success: boolean; error?: string } } | undefined
    await waitFor(async () => {
      status = JSON.parse(await get('/jobs/cms/status')) as typeof status
      return status!.status === 'idle' && status!.lastResult !== undefined && status!.lastResult !== null
    }, 180_000)
    const logs = (JSON.parse(await get('/jobs/cms/logs?tail=2000')) as { logs: string[] }).logs.join('\n')
    expect(status!.lastResult!.success, logs).to.equal(true)
    expect(logs).to.contain('pg_dump of database "cms"')

    for (const [where, text] of [
      ['job config', config],
      ['job log', logs],
      ['npm start output', app!.output()],
    ] as const) {
      expect(text, where).not.to.contain(cmsPassword)
      expect(text, where).not.to.contain(encodeURIComponent(cmsPassword))
    }
    const perJobLogs = walk(path.join(app!.dataDir, 'daemon')).filter((f) => f.endsWith('.log'))
    expect(perJobLogs, 'the job wrote log files to search').to.not.be.empty
    for (const file of perJobLogs) expect(readFileSync(file, 'utf8'), file).not.to.contain(cmsPassword)
  })

  it('restores the dump into a fresh database with the same rows as the live CMS', async function () {
    const listing = await fetch(`${app!.daemonUrl}/api/v1/jobs/cms/backups`, { headers: { cookie } })
    const { backups } = (await listing.json()) as { backups: { name: string }[] }
    expect(backups.length).to.be.greaterThan(0)
    const snapshot = backups[0]!.name
    const restored = mkdtempSync(path.join(tmpdir(), 'e2e-pg-restore-'))
    try {
      // The daemon's own restore: verifies the snapshot, then unpacks it.
      const target = path.join(restored, 'files')
      const daemonCli = path.join(repoRoot, 'backup-daemon', 'bin', 'backup-daemon.js')
      const daemonConfig = path.join(app!.dataDir, 'daemon', 'backup-daemon.yaml')
      await run(process.execPath, [daemonCli, 'restore', 'cms', snapshot, '--config', daemonConfig, '--to', target], { cwd: repoRoot })
      const dump = path.join(target, 'database', 'cms.dump')
      expect(existsSync(dump), `no database/cms.dump in ${snapshot}`).to.equal(true)
      // The media beside it: the uploaded image's bytes are in the snapshot.
      expect(walk(path.join(target, 'media')).some((f) => sha256(readFileSync(f)) === uploaded.sha256)).to.equal(true)

      await pg!.sql('postgres', 'CREATE DATABASE cms_restored')
      const connection = ['-h', pg!.socketDir, '-p', String(pg!.port), '-U', pg!.superuser, '-d', 'cms_restored']
      await run(path.join(pg!.bin, 'pg_restore'), ['--no-owner', '--exit-on-error', ...connection, dump])

      const tablesSql = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
      const tables = (await pg!.sql('cms', tablesSql)).split('\n')
      expect(tables).to.include.members(['images', 'posts', 'posts_gallery', 'users', 'site_settings', 'payload_migrations'])
      expect((await pg!.sql('cms_restored', tablesSql)).split('\n')).to.deep.equal(tables)
      const counts = async (database: string) => Promise.all(tables.map(async (t) => `${t}=${await pg!.sql(database, `SELECT count(*) FROM "${t}"`)}`))
      const liveCounts = await counts('cms')
      expect(await counts('cms_restored')).to.deep.equal(liveCounts)
      expect(liveCounts).to.include('images=2').and.to.include('posts=2')

      for (const query of [
        'SELECT id, alt, filename, filesize, width, height FROM images ORDER BY id',
        'SELECT id, title, slug, hero_image_id, _status FROM posts ORDER BY id',
        'SELECT _parent_id, image_id, caption FROM posts_gallery ORDER BY id',
        'SELECT email, hash FROM users ORDER BY id',
        'SELECT site_title, logo_id FROM site_settings',
      ]) {
        expect(await pg!.sql('cms_restored', query), query).to.equal(await pg!.sql('cms', query))
      }
      // And the restored rows are what the CMS serves.
      const live = (await (await fetch(`${app!.cmsUrl}/api/posts?sort=id&limit=100`)).json()) as { docs: { title: string }[] }
      expect((await pg!.sql('cms_restored', 'SELECT title FROM posts ORDER BY id')).split('\n')).to.deep.equal(live.docs.map((d) => d.title))
      expect(await pg!.sql('cms_restored', `SELECT alt FROM images WHERE alt = '${uploaded.alt}'`)).to.equal(uploaded.alt)
    } finally {
      rmSync(restored, { recursive: true, force: true })
    }
  })
})
