/**
 * A PostgreSQL password written inside `database` (a URI or a libpq key/value string) never reaches
 * pg_dump's or pg_restore's command line (visible to every local user through `ps`) nor the job log.
 * Real cluster, real `backup-daemon run`; pg_dump and pg_restore are wrapped by scripts that record
 * their argv (and whether PGPASSWORD was set) before running the real binaries.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { splitPassword } from '../../src/sources/postgresql/connectionString.js'
import { requirePostgresBin, startPostgresCluster, type PostgresCluster } from '../sources/support/postgresCluster.js'
import { restorePostgres } from '../../src/sources/postgresql/restorePostgres.js'
import { createReadStream } from 'node:fs'

const bin = new URL('../../bin/backup-daemon.js', import.meta.url).pathname

/** A script that appends its argv (one per line) and "PGPASSWORD set: yes|no" to `log`, then execs `real`. */
function recordingWrapper(dir: string, name: string, real: string): { path: string; log: string } {
  const path = join(dir, name)
  const log = join(dir, `${name}.argv`)
  writeFileSync(
    path,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\nif [ -n "$PGPASSWORD" ]; then echo 'PGPASSWORD set: yes' >> '${log}'; else echo 'PGPASSWORD set: no' >> '${log}'; fi\nexec '${real}' "$@"\n`,
  )
  chmodSync(path, 0o755)
  return { path, log }
}

function runJob(configFile: string, job: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [bin, 'run', job, '--config', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '' },
  })
  let output = ''
  child.stdout!.on('data', (c: Buffer) => void (output += c.toString()))
  child.stderr!.on('data', (c: Buffer) => void (output += c.toString()))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output }))
  })
}

describe('security: a PostgreSQL password inside `database` stays off command lines and logs (real cluster)', function () {
  this.timeout(120_000)
  let pg: PostgresCluster
  let pgBin: string | undefined
  let dir: string

  before(async () => {
    // No server binaries fail this suite, naming the package to install (splitPassword's test below needs none).
    pgBin = await requirePostgresBin()
    pg = await startPostgresCluster(pgBin)
    await pg.sql('postgres', 'CREATE DATABASE shop')
    await pg.sql('shop', "CREATE TABLE items (id int PRIMARY KEY, name text); INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 50) g")
    dir = mkdtempSync(join(tmpdir(), 'sec-pg-'))
  })
  after(async () => {
    await pg?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const forms = () =>
    [
      ['URI', `postgresql://postgres:${encodeURIComponent(pg.password)}@127.0.0.1:${pg.port}/shop`],
      ['URI with ?password=', `postgres://postgres@127.0.0.1:${pg.port}/shop?password=${encodeURIComponent(pg.password)}&connect_timeout=10`],
      ['key/value string', `host=127.0.0.1 port=${pg.port} user=postgres password='${pg.password}' dbname=shop`],
    ] as const

  for (const index of [0, 1, 2]) {
    it(`form ${index + 1}: backup-daemon run dumps the database; argv and job log hold no password; restore does not either`, async () => {
      const [what, database] = forms()[index]!
      const work = mkdtempSync(join(dir, 'job-'))
      const dump = recordingWrapper(work, 'pg_dump', join(pgBin!, 'pg_dump'))
      const config = {
        dataDir: join(work, 'data'),
        logs: { system: true, perJob: true, directory: join(work, 'logs') },
        jobs: [
          {
            name: 'pgjob',
            compression: 'tar',
            sources: [{ type: 'postgresql', name: 'pg', database, pgDump: dump.path }],
            storages: [{ type: 'local', name: 'disk', path: join(work, 'store') }],
          },
        ],
      }
      const configFile = join(work, 'config.yaml')
      writeFileSync(configFile, stringify(config))
      const { code, output } = await runJob(configFile, 'pgjob')
      expect(code, `${what}:\n${output}`).to.equal(0)

      const argv = readFileSync(dump.log, 'utf8')
      expect(argv).to.include('PGPASSWORD set: yes')
      expect(argv).to.match(/--dbname=/)
      expect(argv, 'pg_dump argv').not.to.include(pg.password)
      const jobLog = readFileSync(join(work, 'logs', 'jobs', 'pgjob.log'), 'utf8')
      expect(jobLog).to.include('pg_dump of database "shop"')
      for (const text of [output, jobLog]) expect(text).not.to.include(pg.password)
      // The archive entry is named after the database alone.
      const snapshot = readdirSync(join(work, 'store'), { recursive: true })
        .map(String)
        .find((f) => f.endsWith('.tar'))!
      const listing = await new Promise<string>((resolve) => {
        const tar = spawn('tar', ['-tf', join(work, 'store', snapshot)])
        let out = ''
        tar.stdout.on('data', (c: Buffer) => void (out += c.toString()))
        tar.once('close', () => resolve(out))
      })
      expect(listing.split('\n')).to.include('pg/shop.dump')

      // pg_restore with the same connection string: the password goes to PGPASSWORD too.
      await pg.sql('postgres', `CREATE DATABASE restored${index}`)
      const restore = recordingWrapper(work, 'pg_restore', join(pgBin!, 'pg_restore'))
      const extracted = join(work, 'x')
      await new Promise((resolve) =>
        spawn('sh', ['-c', `mkdir -p '${extracted}' && tar -xf '${join(work, 'store', snapshot)}' -C '${extracted}'`]).once('close', resolve),
      )
      await restorePostgres(
        createReadStream(join(extracted, 'pg', 'shop.dump')),
        { database: database.replace('shop', `restored${index}`) },
        { pgRestore: restore.path },
      )
      expect(await pg.sql(`restored${index}`, 'SELECT count(*) FROM items')).to.equal('50')
      const restoreArgv = readFileSync(restore.log, 'utf8')
      expect(restoreArgv).to.include('PGPASSWORD set: yes')
      expect(restoreArgv, 'pg_restore argv').not.to.include(pg.password)
    })
  }
})

describe('security: splitPassword (no server needed)', () => {
  it('splitPassword keeps everything but the password and names the database', () => {
    expect(splitPassword('postgresql://u:p%40ss@db.example:5433/shop?sslmode=require')).to.deep.equal({
      database: 'postgresql://u@db.example:5433/shop?sslmode=require',
      password: 'p@ss',
      label: 'shop',
    })
    expect(splitPassword('postgresql://u@h1:5432,h2:5433/app?password=x&target_session_attrs=any')).to.deep.equal({
      database: 'postgresql://u@h1:5432,h2:5433/app?target_session_attrs=any',
      password: 'x',
      label: 'app',
    })
    expect(splitPassword("host=db password='a b\\'c' dbname = 'my db'")).to.deep.equal({
      database: "host=db dbname='my db'",
      password: "a b'c",
      label: 'my db',
    })
    expect(splitPassword('shop')).to.deep.equal({ database: 'shop', label: 'shop' })
    expect(() => splitPassword("host=db password='unterminated"))
      .to.throw(/not understood/)
      .with.property('message')
      .that.does.not.include('unterminated')
  })
})
