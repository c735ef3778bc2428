/**
 * @module bench/daemon-dump-forms
 * Database dumps into a local restic repository (issue 42), each kind in two dump forms against the same
 * database states: the run's time (`backup-daemon run`, a new process each) and the bytes the repository
 * grew by (on disk), for the first run, an unchanged run, 1% new rows and 1% of the rows updated across
 * the table. Throwaway servers (`support/dumpServers.ts`):
 * - PostgreSQL: `dumpCompression: pg_dump` (pg_dump's zlib, the form before issue 42) against `none`
 *   (`--compress=0`, custom format still); a table of `BENCH_DUMP_MB` MB of rows as COPY text (default 500);
 * - MariaDB: the dump with its closing `-- Dump completed on <date>` line (`extraParams: { dump-date: '' }`,
 *   the form before) against `--skip-dump-date`; `BENCH_DUMP_MARIADB_MB` (default 50);
 * - Redis: the server's `rdbcompression yes` against `no` (a server setting, `CONFIG SET` before each
 *   form's run); `BENCH_DUMP_REDIS_MB` (default 50).
 * `BENCH_DUMP_MARIADB_EXTRA` adds dump options to MariaDB's second form (`"skip-extended-insert: ''"`: a statement per row).
 * `BENCH_DUMP_ONLY=postgresql,mariadb,redis` (comma-separated) runs only those kinds. RESULT lines: per kind
 * and state, the bytes the second form adds as a ratio of the first's, and its speed against the first's.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startMariadb, startPostgres, startRedis, type DumpServer } from './support/dumpServers.js'
import { printResult } from './support/measure.js'

const MiB = 1 << 20
const bin = fileURLToPath(new URL('../backup-daemon/bin/backup-daemon.js', import.meta.url))
const only = (process.env.BENCH_DUMP_ONLY ?? 'postgresql,mariadb,redis').split(',').map((s) => s.trim())
const sizes = {
  postgresql: Number(process.env.BENCH_DUMP_MB ?? 500),
  mariadb: Number(process.env.BENCH_DUMP_MARIADB_MB ?? 50),
  redis: Number(process.env.BENCH_DUMP_REDIS_MB ?? 50),
}
/** More dump options for MariaDB's second form, as YAML `extraParams` entries (e.g. `skip-extended-insert: ''`). */
const mariadbExtra = process.env.BENCH_DUMP_MARIADB_EXTRA
/** Bytes of one generated row as text (about; the dump's COPY line, the SQL tuple, the Redis value). */
const rowBytes = 110
const states = ['first', 'unchanged', '1% new rows', '1% rows updated', '0.1% rows updated in one place'] as const

interface Form {
  label: string
  /** The source's YAML flow mapping. */
  source: string
  /** Before each of this form's runs (Redis: the server's setting). */
  before?(): Promise<void>
}

interface Kind {
  name: string
  server: DumpServer
  forms: [Form, Form]
  insertNew(): Promise<void>
  updateSpread(): Promise<void>
  /** 0.1% of the rows, neighbours in the middle of the table (Redis: 0.1% of the keys, which it orders by hash). */
  updateLocal(): Promise<void>
  /** The dump's size, for the log. */
  describe(): Promise<string>
}

interface Measured {
  seconds: number
  added: number
  /** restic's `data_added` as the run's log says it (before restic's compression). */
  logged: string
}

function sizeOf(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size
  return total
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 2 : 1)} MiB`

function newWork(form: Form): string {
  const work = mkdtempSync(join(tmpdir(), 'bench-dump-'))
  writeFileSync(
    join(work, 'bench.yaml'),
    `dataDir: ./data\njobs:\n  - name: bench\n    sources: [${form.source}]\n    storages: [{ type: restic, name: dedup, repository: ./repo, password: bench-password }]\n`,
  )
  return work
}

async function daemonRun(work: string, form: Form): Promise<Measured> {
  await form.before?.()
  const repo = join(work, 'repo')
  const before = (() => {
    try {
      return sizeOf(repo)
    } catch {
      return 0
    }
  })()
  const start = process.hrtime.bigint()
  const child = spawn(process.execPath, [bin, 'run', 'bench', '--config', join(work, 'bench.yaml')], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout.on('data', (chunk) => (log += chunk))
  child.stderr.on('data', (chunk) => (log += chunk))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (code !== 0) throw new Error(`backup-daemon run failed (${code}):\n${log}`)
  const logged = /(\S+ MiB) read, (\S+ MiB) added/.exec(log)
  return { seconds, added: sizeOf(repo) - before, logged: logged ? `${logged[1]} read, ${logged[2]} added` : '?' }
}

async function postgresKind(): Promise<Kind> {
  const pg = await startPostgres()
  const rows = Math.round((sizes.postgresql * 1e6) / rowBytes)
  let next = 1
  const insert = async (count: number) => {
    const from = next
    next += count
    // Text as an application's table holds it: ids, a customer, a time, words and hex digests (zlib takes it to about 45%).
    await pg.sql(
      'bench',
      `INSERT INTO orders SELECT g, g % 9973, timestamptz '2024-01-01' + g * interval '1 second', 'order ' || g || ' of customer ' || (g % 9973) || ' ' || md5(g::text), substr(md5((g * 7)::text), 1, 20) FROM generate_series(${from}, ${next - 1}) g`,
    )
  }
  await pg.sql('postgres', 'CREATE DATABASE bench')
  await pg.sql('bench', 'CREATE TABLE orders (id bigint PRIMARY KEY, customer int, placed timestamptz, item text, note text)')
  for (let done = 0; done < rows; done += 1_000_000) await insert(Math.min(1_000_000, rows - done))
  await pg.sql('bench', 'VACUUM ANALYZE orders')
  const source = (form: string) =>
    `{ type: postgresql, name: db, database: bench, host: ${JSON.stringify(pg.dir)}, port: ${pg.port}, user: postgres, pgDump: ${JSON.stringify(join(pg.bin, 'pg_dump'))}, dumpCompression: ${form} }`
  return {
    name: 'postgresql',
    server: pg,
    forms: [
      { label: 'pg_dump -Fc (zlib)', source: source('pg_dump') },
      { label: 'pg_dump -Fc -Z0', source: source('none') },
    ],
    insertNew: () => insert(Math.ceil(rows / 100)),
    updateSpread: () => pg.sql('bench', "UPDATE orders SET note = note || ' updated', placed = placed + interval '1 day' WHERE id % 100 = 42").then(() => {}),
    updateLocal: () =>
      pg.sql('bench', `UPDATE orders SET note = note || ' again' WHERE id BETWEEN ${rows >> 1} AND ${(rows >> 1) + Math.ceil(rows / 1000)}`).then(() => {}),
    describe: async () => `${rows} rows, table ${await pg.sql('bench', "SELECT pg_size_pretty(pg_total_relation_size('orders'))")}`,
  }
}

async function mariadbKind(): Promise<Kind> {
  const db = await startMariadb()
  const rows = Math.round((sizes.mariadb * 1e6) / rowBytes)
  let next = 1
  const insert = async (count: number) => {
    const from = next
    next += count
    await db.sql(
      `INSERT INTO orders SELECT seq, seq % 9973, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq SECOND, CONCAT('order ', seq, ' of customer ', seq % 9973, ' ', MD5(seq)), LEFT(MD5(seq * 7), 20) FROM seq_${from}_to_${next - 1}`,
      'bench',
    )
  }
  await db.sql('CREATE DATABASE bench')
  await db.sql('CREATE TABLE orders (id bigint PRIMARY KEY, customer int, placed datetime, item text, note text) ENGINE=InnoDB', 'bench')
  for (let done = 0; done < rows; done += 200_000) await insert(Math.min(200_000, rows - done))
  const source = (extra: string) => `{ type: mariadb, name: db, socket: ${JSON.stringify(db.socket)}, username: root, database: bench${extra} }`
  return {
    name: 'mariadb',
    server: db,
    forms: [
      { label: 'with its dump date', source: source(", extraParams: { dump-date: '' }") },
      mariadbExtra
        ? { label: `--skip-dump-date, ${mariadbExtra}`, source: source(`, extraParams: { ${mariadbExtra} }`) }
        : { label: '--skip-dump-date', source: source('') },
    ],
    insertNew: () => insert(Math.ceil(rows / 100)),
    updateSpread: () =>
      db.sql("UPDATE orders SET note = CONCAT(note, ' updated'), placed = placed + INTERVAL 1 DAY WHERE id % 100 = 42", 'bench').then(() => {}),
    updateLocal: () =>
      db
        .sql(`UPDATE orders SET note = CONCAT(note, ' again') WHERE id BETWEEN ${rows >> 1} AND ${(rows >> 1) + Math.ceil(rows / 1000)}`, 'bench')
        .then(() => {}),
    describe: async () => `${rows} rows`,
  }
}

async function redisKind(): Promise<Kind> {
  const redis = await startRedis(true)
  const keys = Math.round((sizes.redis * 1e6) / 200)
  // A cached JSON document (its field names repeat inside it, which LZF finds), ~200 bytes.
  const value =
    `'{"order":{"id":' .. i .. ',"customer":' .. (i % 9973) .. ',"status":"shipped"},"history":[{"status":"created"},{"status":"paid"},` +
    `{"status":"shipped"}],"digest":"' .. redis.sha1hex(tostring(i)) .. '","note":"' .. string.sub(redis.sha1hex(tostring(i * 7)), 1, 20) .. '"}'`
  const set = (from: number, to: number, suffix = '', step = 1) =>
    redis.cli('EVAL', `for i = ${from}, ${to}, ${step} do redis.call('SET', 'order:' .. i, ${value} .. '${suffix}') end return 1`, '0')
  for (let done = 0; done < keys; done += 100_000) await set(done + 1, Math.min(keys, done + 100_000))
  let count = keys
  const setting = (yes: boolean) => async () => void (await redis.cli('CONFIG', 'SET', 'rdbcompression', yes ? 'yes' : 'no'))
  const source = `{ type: redis, name: db, socket: ${JSON.stringify(redis.socket)} }`
  return {
    name: 'redis',
    server: redis,
    forms: [
      { label: 'rdbcompression yes', source, before: setting(true) },
      { label: 'rdbcompression no', source, before: setting(false) },
    ],
    insertNew: async () => {
      await set(count + 1, count + Math.ceil(keys / 100))
      count += Math.ceil(keys / 100)
    },
    updateSpread: () => set(42, count, ' updated', 100).then(() => {}),
    updateLocal: () => set(keys >> 1, (keys >> 1) + Math.ceil(keys / 1000), ' again').then(() => {}),
    describe: async () => `${await redis.cli('DBSIZE')} keys, used memory ${(await redis.cli('INFO', 'memory')).match(/used_memory_human:(\S+)/)?.[1]}`,
  }
}

async function benchKind(kind: Kind): Promise<void> {
  console.log(`${kind.name}: ${await kind.describe()}`)
  const works = kind.forms.map(newWork)
  try {
    for (const state of states) {
      if (state === '1% new rows') await kind.insertNew()
      if (state === '1% rows updated') await kind.updateSpread()
      if (state === '0.1% rows updated in one place') await kind.updateLocal()
      const [old, now] = [await daemonRun(works[0]!, kind.forms[0]), await daemonRun(works[1]!, kind.forms[1])]
      for (const [form, m] of [
        [kind.forms[0], old],
        [kind.forms[1], now],
      ] as const)
        console.log(`${kind.name}, ${state}, ${form.label}: ${m.seconds.toFixed(2)} s, +${mib(m.added)} on disk (log: ${m.logged})`)
      const name = `dump-${kind.name}-${state.replace(/%/g, 'pct').replace(/\W+/g, '-')}`
      printResult(
        `${name}-bytes`,
        now.added / Math.max(old.added, 1),
        `the bytes added by ${kind.forms[0].label} (${kind.forms[1].label}: +${mib(now.added)}, ${kind.forms[0].label}: +${mib(old.added)})`,
      )
      printResult(
        `${name}-speed`,
        old.seconds / now.seconds,
        `the speed of ${kind.forms[0].label} (${kind.forms[1].label} ${now.seconds.toFixed(2)} s, ${kind.forms[0].label} ${old.seconds.toFixed(2)} s)`,
      )
      if (state === 'unchanged') printResult(`${name}-vs-2mib`, now.added / (2 * MiB), `of 2 MiB added by an unchanged run (${kind.forms[1].label})`, '<= 1x')
    }
  } finally {
    for (const work of works) rmSync(work, { recursive: true, force: true })
  }
}

const kinds: Record<string, () => Promise<Kind>> = { postgresql: postgresKind, mariadb: mariadbKind, redis: redisKind }
for (const name of only) {
  const make = kinds[name]
  if (!make) throw new Error(`BENCH_DUMP_ONLY: no kind "${name}" (postgresql, mariadb, redis)`)
  const started = Date.now()
  const kind = await make()
  console.log(`${name}: filled in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  try {
    await benchKind(kind)
  } finally {
    await kind.server.stop()
  }
}
