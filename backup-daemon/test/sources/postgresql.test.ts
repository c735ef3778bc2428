import { expect } from 'chai'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { restorePostgres } from '../../src/sources/postgresql/restorePostgres.js'
import type { PostgresqlSourceConfig } from '../../src/sources/postgresql/index.js'
import { PostgresqlSource, postgresqlSource } from '../../src/sources/postgresql/index.js'
import { pgDumpArgs } from '../../src/sources/postgresql/pgDumpArgs.js'
import type { SourceEntry } from '../../src/sources/types.js'
import { startPostgres, type PostgresCluster } from './support/postgresCluster.js'
import { tcpSource } from './support/postgresSource.js'
import { entriesOf } from '../support/entriesOf.js'

const never = () => new AbortController().signal
const context = { log: () => {} }

async function dump(config: PostgresqlSourceConfig, signal = never()): Promise<{ entries: SourceEntry[]; bytes: Buffer }> {
  const entries: SourceEntry[] = []
  let bytes = Buffer.alloc(0)
  for await (const entry of entriesOf(new PostgresqlSource(config, context), signal)) {
    entries.push(entry)
    if (entry.open) bytes = await buffer(entry.open(signal))
  }
  return { entries, bytes }
}

/** Polls a query (every 20 ms, up to 30 s) until it returns a row: waits for a state of the server, not a time. */
async function until(pg: PostgresCluster, what: string, query: string): Promise<string> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const rows = await pg.sql('shop', query)
    if (rows) return rows
    if (Date.now() > deadline) throw new Error(`timed out after 30 s waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('sources/postgresql (a real PostgreSQL cluster)', function () {
  this.timeout(120_000)
  let pg: PostgresCluster
  let bin: string
  let base: PostgresqlSourceConfig

  before(async () => {
    // No server binaries fail this suite, naming the package to install (the tests below need none).
    pg = await startPostgres()
    bin = pg.bin
    await pg.sql('postgres', 'CREATE DATABASE shop')
    await pg.sql(
      'shop',
      'CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, price numeric(10,2), tags text[], meta jsonb); CREATE TABLE audit_log (id serial, line text); CREATE INDEX items_name ON items (name)',
    )
    await pg.sql(
      'shop',
      "INSERT INTO items (name, price, tags, meta) SELECT 'item ' || g, g * 1.5, ARRAY['a', 'b' || g], jsonb_build_object('n', g) FROM generate_series(1, 5000) g; INSERT INTO audit_log (line) SELECT 'secret line ' || g FROM generate_series(1, 100) g",
    )
    base = tcpSource(pg, 'shop')
  })
  after(async () => {
    await pg?.stop()
  })

  it('dumps in custom format over TCP with the password from the environment, and restores it with pg_restore', async () => {
    const { entries, bytes } = await dump({ ...base, excludeTables: ['audit_log'] })
    expect(entries.map((e) => [e.name, e.type, e.size])).to.deep.equal([
      ['pg', 'directory', undefined],
      ['pg/shop.dump', 'file', undefined],
    ])
    expect(bytes.subarray(0, 5).toString()).to.equal('PGDMP')
    await pg.sql('postgres', 'CREATE DATABASE restored')
    await restorePostgres(
      Readable.from([bytes]),
      { database: 'restored', host: '127.0.0.1', port: pg.port, user: 'postgres', password: pg.password },
      { pgRestore: join(bin, 'pg_restore') },
    )
    expect(await pg.sql('restored', "SELECT count(*), sum(price), max(meta->>'n') FROM items")).to.equal('5000|18753750.00|999')
    expect(await pg.sql('restored', 'SELECT tags[2] FROM items WHERE id = 42')).to.equal('b42')
    expect(await pg.sql('restored', "SELECT indexname FROM pg_indexes WHERE tablename = 'items' ORDER BY 1")).to.equal('items_name\nitems_pkey')
    // excludeTables left the table out entirely.
    expect(await pg.sql('restored', "SELECT count(*) FROM pg_tables WHERE tablename = 'audit_log'")).to.equal('0')
  })

  it('passes extra params through (a schema-only dump has no rows)', async () => {
    const { bytes } = await dump({ ...base, params: ['--schema-only'] })
    await pg.sql('postgres', 'CREATE DATABASE schema_only')
    await restorePostgres(
      Readable.from([bytes]),
      { database: 'schema_only', host: pg.socketDir, port: pg.port, user: 'postgres' },
      { pgRestore: join(bin, 'pg_restore') },
    )
    expect(await pg.sql('schema_only', 'SELECT count(*) FROM items')).to.equal('0')
  })

  it("fails the run with pg_dump's last lines on a wrong password, without the password", async () => {
    const err = (await dump({ ...base, password: 'wrong-password-123' }).catch((e: unknown) => e)) as Error
    expect(err).to.be.instanceOf(Error)
    expect(err.message).to.match(/pg_dump exited with 1: .*password authentication failed/)
    expect(err.message).not.to.include('wrong-password-123')
  })

  it('fails on a missing database and a missing binary', async () => {
    const missing = (await dump({ ...base, database: 'nope' }).catch((e: unknown) => e)) as Error
    expect(missing.message).to.match(/database "nope" does not exist/)
    const noBinary = (await dump({ ...base, pgDump: '/nonexistent/pg_dump' }).catch((e: unknown) => e)) as Error
    expect(noBinary.message).to.match(/could not start/)
  })

  it('kills pg_dump when cancelled', async () => {
    // A dump that cannot finish: pg_dump waits for a lock held by an open transaction.
    const controller = new AbortController()
    let lockReleased = false
    const blocker = pg
      .sql('shop', 'BEGIN; LOCK TABLE items IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(30); COMMIT')
      .catch(() => {})
      .finally(() => (lockReleased = true))
    await until(
      pg,
      'the blocker holds its lock on items',
      "SELECT 1 FROM pg_locks WHERE granted AND mode = 'AccessExclusiveLock' AND relation = 'items'::regclass",
    )
    const dumped = dump({ ...base, params: ['--lock-wait-timeout=60000'] }, controller.signal).catch((e: unknown) => e)
    // Cancel only once pg_dump's backend is waiting on that lock: the dump is certainly in progress.
    await until(pg, 'pg_dump waits for the lock on items', "SELECT pid FROM pg_stat_activity WHERE application_name = 'pg_dump' AND wait_event_type = 'Lock'")
    controller.abort(new Error('cancelled by test'))
    const err = (await dumped) as Error
    expect(err.message).to.equal('cancelled by test')
    // The run ended while the lock was still held: pg_dump was killed, not waited for.
    expect(lockReleased).to.equal(false)
    await pg.sql('postgres', "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()")
    await blocker
  })

  it('refuses pg_restore errors and leaves the target untouched', async () => {
    await pg.sql('postgres', 'CREATE DATABASE broken')
    const err = (await restorePostgres(
      Readable.from([Buffer.from('PGDMP not really a dump')]),
      { database: 'broken', host: pg.socketDir, port: pg.port, user: 'postgres' },
      { pgRestore: join(bin, 'pg_restore') },
    ).catch((e: unknown) => e)) as Error
    expect(err.message).to.match(/pg_restore exited with 1/)
    expect(await pg.sql('broken', "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).to.equal('0')
  })
})

describe('sources/postgresql (no server needed)', () => {
  it('never puts the password on the command line', () => {
    const config: PostgresqlSourceConfig = {
      type: 'postgresql',
      name: 'pg',
      database: 'shop',
      host: '127.0.0.1',
      port: 5432,
      user: 'postgres',
      password: 'p@ss',
    }
    const { args, env } = pgDumpArgs(config, {})
    expect(args.join(' ')).not.to.include('p@ss')
    expect(env.PGPASSWORD).to.equal('p@ss')
    expect(args).to.include('--no-password')
  })

  it('validates its config entry and marks the password secret', () => {
    expect(postgresqlSource.secretKeys).to.deep.equal(['password'])
    expect(postgresqlSource.configSchema.safeParse({ type: 'postgresql', name: 'pg', database: 'x', port: 70000 }).success).to.equal(false)
    expect(postgresqlSource.configSchema.safeParse({ type: 'postgresql', name: 'pg' }).success).to.equal(false)
  })
})
