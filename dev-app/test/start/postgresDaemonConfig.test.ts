/**
 * `DATABASE_URI=postgres://…` turns the daemon's `cms` job into a `postgresql` source given in parts
 * (host, port, user, database, password in its own key). The parsing is checked on its own, then the
 * written configuration is run for real with `backup-daemon run cms` against a throwaway PostgreSQL
 * cluster, with a `pg_dump` first on PATH that records its argv and PGPASSWORD and then runs the real
 * pg_dump: the password reaches it in PGPASSWORD only (the server checks it), never in its argv, and
 * never in the run's output.
 */
import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect } from 'chai'
import { parse } from 'yaml'
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js'
import { writeDaemonConfig } from '../../src/start/daemonConfig.js'
import { postgresSourceFromUri } from '../../src/start/postgresSource.js'
import { requirePostgresBin, startPostgresCluster } from '../../../backup-daemon/test/sources/support/postgresCluster.js'

const run = promisify(execFile)
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url))

describe('dev-app daemon config on PostgreSQL', () => {
  describe('postgresSourceFromUri', () => {
    it('splits a URI into parts, decoding the percent-encoded user and password', () => {
      expect(postgresSourceFromUri('postgres://cms%20user:p%40ss%3Aw%2Frd@db.example:6543/cms')).to.deep.equal({
        type: 'postgresql',
        name: 'database',
        database: 'cms',
        host: 'db.example',
        port: 6543,
        user: 'cms user',
        password: 'p@ss:w/rd',
      })
    })

    it('accepts postgresql://, an IPv6 host, no port and no password', () => {
      const source = postgresSourceFromUri('postgresql://app@[::1]/shop', 'db')
      expect(source).to.deep.equal({ type: 'postgresql', name: 'db', database: 'shop', host: '::1', user: 'app' })
    })

    it('takes host (a socket folder), port, user and password from the query, as libpq does', () => {
      const source = postgresSourceFromUri('postgres:///cms?host=/run/postgresql&port=5433&user=cms&password=q%26s')
      expect(source).to.deep.equal({ type: 'postgresql', name: 'database', database: 'cms', host: '/run/postgresql', port: 5433, user: 'cms', password: 'q&s' })
    })

    it('keeps other connection parameters in a key/value database string, quoted', () => {
      const source = postgresSourceFromUri("postgres://u:pw@h/my'db?sslmode=require&application_name=dev%20app")
      expect(source.database).to.equal("dbname='my\\'db' sslmode='require' application_name='dev app'")
      expect(source.password).to.equal('pw')
      expect(source.database).not.to.contain('pw')
    })

    it('defaults the database to the user name, as libpq does', () => {
      expect(postgresSourceFromUri('postgres://alice:x@h').database).to.equal('alice')
    })

    it('refuses a bad port or parameter without echoing the URI', () => {
      expect(() => postgresSourceFromUri('postgres://u:secret-pw@h:0/db'))
        .to.throw('port must be 1-65535')
        .and.not.to.match(/secret-pw/)
      for (const uri of ['postgres://u:secret-pw@h/db?bad%20key=1', 'postgres://u:secret-pw@[nope/db']) {
        let message = ''
        try {
          postgresSourceFromUri(uri)
        } catch (error) {
          message = (error as Error).message
        }
        expect(message).to.match(/^DATABASE_URI: /)
        expect(message).not.to.contain('secret-pw')
      }
    })
  })

  describe('the written cms job', function () {
    this.timeout(120_000)
    let dir: string
    let emulator: RunningEmulator

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'dev-app-pgconfig-'))
      emulator = await startEmulator({ host: '127.0.0.1', dataDir: path.join(dir, 'host'), storage: { zoneName: 'zone', accessKey: 'zone-key' } })
    })
    after(async () => {
      await emulator?.close()
      await rm(dir, { recursive: true, force: true })
    })

    const password = 'pg p@ss:w/rd-Unit-42'
    const writeConfig = (databasePort = 6432, mediaFolder?: string) =>
      writeDaemonConfig({
        ...(mediaFolder && { mediaFolder }),
        dataDir: dir,
        port: 1,
        bindAddress: '127.0.0.1',
        username: 'admin',
        passwordHash: 'x',
        secret: 'pg-config-test-secret-0123456789abcdef',
        databaseUri: `postgres://cms:${encodeURIComponent(password)}@127.0.0.1:${databasePort}/cms`,
        host: { endpoint: `${emulator.url}/storage`, zoneName: 'zone', accessKey: 'zone-key' },
      })

    it('is a postgresql source in parts, with the CMS check in its drill, which the daemon accepts', async () => {
      await mkdir(path.join(dir, 'media'), { recursive: true })
      const file = writeConfig(6432, path.join(dir, 'media'))
      const config = parse(await readFile(file, 'utf8')) as { jobs: { sources: Record<string, unknown>[]; drill: unknown }[] }
      const expected = { type: 'postgresql', name: 'database', database: 'cms', host: '127.0.0.1', port: 6432, user: 'cms', password }
      expect(config.jobs[0]!.sources[0]).to.deep.equal(expected)
      // The daily drill's CMS check reads the PostgreSQL database too (the dump restored into a scratch database).
      expect(config.jobs[0]!.drill).to.deep.equal({
        schedule: '0 1 * * *',
        cms: { database: 'database', uploads: 'media', collections: [{ slug: 'images', check: 'uploads' }] },
      })
      const daemonCli = path.join(repoRoot, 'backup-daemon', 'bin', 'backup-daemon.js')
      const checked = await run(process.execPath, [daemonCli, 'check-config', '--config', file], { cwd: repoRoot })
      expect(checked.stderr).not.to.contain('error')
    })

    it('runs pg_dump with the parts on its command line and the password in PGPASSWORD only', async () => {
      // No server binaries fail this test, naming the package to install.
      const pg = await startPostgresCluster(await requirePostgresBin())
      try {
        // The job's own role, with the password the URI carries: the dump only succeeds if it arrives.
        await pg.sql('postgres', `CREATE ROLE cms LOGIN PASSWORD '${password}'`)
        await pg.sql('postgres', 'CREATE DATABASE cms OWNER cms')
        await pg.sql('cms', "SET ROLE cms; CREATE TABLE items (id int PRIMARY KEY, name text); INSERT INTO items VALUES (1, 'one')")
        const file = writeConfig(pg.port)
        // A pg_dump that records its argv (one per line) and PGPASSWORD, then runs the real one.
        const bin = path.join(dir, 'bin')
        const record = path.join(dir, 'pg_dump-call')
        await mkdir(bin, { recursive: true })
        await writeFile(
          path.join(bin, 'pg_dump'),
          `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}.argv'\nprintf '%s' "$PGPASSWORD" > '${record}.env'\nexec '${path.join(pg.bin, 'pg_dump')}' "$@"\n`,
        )
        await chmod(path.join(bin, 'pg_dump'), 0o755)
        const daemonCli = path.join(repoRoot, 'backup-daemon', 'bin', 'backup-daemon.js')
        const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, PGPASSWORD: '' }
        // On failure, the run's own output (why pg_dump or the upload failed) is the message.
        const result = await run(process.execPath, [daemonCli, 'run', 'cms', '--config', file], { cwd: repoRoot, env }).catch(
          (error: { stdout: string; stderr: string }) => {
            throw new Error(`backup-daemon run cms failed:\n${error.stdout}${error.stderr}`)
          },
        )
        const argv = (await readFile(`${record}.argv`, 'utf8')).trim().split('\n')
        expect(argv).to.include.members(['--format=custom', '--dbname=cms', '--host=127.0.0.1', `--port=${pg.port}`, '--username=cms'])
        expect(argv.join(' ')).not.to.contain(password)
        expect(argv.join(' ')).not.to.contain(encodeURIComponent(password))
        expect(await readFile(`${record}.env`, 'utf8')).to.equal(password)
        const output = result.stdout + result.stderr
        expect(output).to.contain('pg_dump of database "cms"')
        expect(output).to.match(/committed cms-/)
        expect(output).not.to.contain(password)
      } finally {
        await pg.stop()
      }
    })
  })
})
