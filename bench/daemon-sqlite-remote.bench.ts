/**
 * @module bench/daemon-sqlite-remote
 * Backs up a ~1 GiB SQLite database (BENCH_SQLITE_GIB to change) with `backup-daemon run` (a real
 * child process: `sqlite` source, tar.gz, written to an `s3` storage on s3rver and a `host` storage
 * on the host emulator in one run), against the baseline an operator would script: `sqlite3 .backup`,
 * `gzip`, then an upload of the same file to both (PutObject to s3rver, PUT to the storage API).
 * Prints the throughput ratio daemon/baseline and the daemon's peak RSS (VmHWM). Target: RSS < 150 MiB.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { peakRssMiB, printResult } from './support/measure.js'

const MiB = 1 << 20
const bin = fileURLToPath(new URL('../backup-daemon/bin/backup-daemon.js', import.meta.url))
const scale = Number(process.env.BENCH_SQLITE_GIB ?? 1)

interface Emulator {
  url: string
  storage: { endpoint: string }
  close(): Promise<void>
}
interface S3rverInstance {
  run(): Promise<{ port: number }>
  close(): Promise<void>
}

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9
}

function sqlite(db: string, ...commands: string[]): void {
  const result = spawnSync('sqlite3', [db, ...commands], { stdio: ['ignore', 'inherit', 'inherit'] })
  if (result.status !== 0) throw new Error(`sqlite3 ${commands.join(' ')} failed`)
}

/** Rows of mixed text and hex of random bytes (compresses about 2:1, like real CMS content). */
function makeDatabase(db: string, bytes: number): void {
  const rows = Math.ceil(bytes / 560)
  sqlite(db, 'PRAGMA journal_mode=WAL;', 'CREATE TABLE posts (id INTEGER PRIMARY KEY, slug TEXT, body TEXT, hash TEXT);')
  for (let done = 0; done < rows; done += 500_000) {
    const n = Math.min(500_000, rows - done)
    sqlite(
      db,
      `INSERT INTO posts (slug, body, hash) SELECT 'post-' || value, printf('%.200c lorem ipsum dolor sit amet, backup daemon snapshot %d', 'x', value), hex(randomblob(150)) FROM generate_series(${done + 1}, ${done + n});`,
    )
  }
  sqlite(db, 'CREATE INDEX posts_slug ON posts (slug);', 'PRAGMA wal_checkpoint(TRUNCATE);')
}

async function baseline(work: string, db: string, s3: S3Client, bucket: string, hostEndpoint: string): Promise<number> {
  const start = process.hrtime.bigint()
  const copy = join(work, 'baseline.db')
  sqlite(db, `.backup ${copy}`)
  const gz = spawnSync('gzip', ['-6', copy], { stdio: 'inherit' })
  if (gz.status !== 0) throw new Error('gzip failed')
  const file = `${copy}.gz`
  const size = statSync(file).size
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'baseline/db.gz', Body: createReadStream(file), ContentLength: size }))
  const response = await fetch(`${hostEndpoint}/zone/baseline/db.gz`, {
    method: 'PUT',
    headers: { AccessKey: 'bench-key', 'Content-Length': String(size) },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit)
  if (!response.ok) throw new Error(`baseline host upload: ${response.status}`)
  const elapsed = seconds(start)
  rmSync(file)
  return elapsed
}

async function daemon(work: string, db: string, s3Endpoint: string, hostEndpoint: string): Promise<{ seconds: number; peakMiB: number }> {
  const config = join(work, 'bench.yaml')
  writeFileSync(
    config,
    [
      `dataDir: ./data`,
      `jobs:`,
      `  - name: bench`,
      `    compression: tar.gz`,
      `    sources: [{ type: sqlite, name: cms, path: ${JSON.stringify(db)} }]`,
      `    storages:`,
      `      - { type: s3, name: s3rver, bucket: bench, endpoint: ${JSON.stringify(s3Endpoint)}, usePathStyle: true, accessKeyId: S3RVER, secretAccessKey: S3RVER }`,
      `      - { type: host, name: emulator, endpoint: ${JSON.stringify(hostEndpoint)}, zoneName: zone, accessKey: bench-key }`,
      '',
    ].join('\n'),
  )
  const start = process.hrtime.bigint()
  const child = spawn(process.execPath, [bin, 'run', 'bench', '--config', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TMPDIR: work },
  })
  let peakMiB = 0
  let log = ''
  child.stdout.on('data', (chunk) => (log += chunk))
  const timer = setInterval(() => {
    try {
      const sample = peakRssMiB(child.pid!)
      if (Number.isFinite(sample)) peakMiB = Math.max(peakMiB, sample)
    } catch {
      // the process just exited
    }
  }, 50)
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  clearInterval(timer)
  const elapsed = seconds(start)
  if (code !== 0) throw new Error(`backup-daemon run failed (${code}):\n${log}`)
  if (process.env.BENCH_VERBOSE) console.log(log)
  return { seconds: elapsed, peakMiB }
}

const work = mkdtempSync(join(tmpdir(), 'bench-sqlite-remote-'))
const specifier = 'dev-app/emulator'
const { startEmulator } = (await import(specifier)) as { startEmulator(o: object): Promise<Emulator> }
const emulator = await startEmulator({ port: 0, host: '127.0.0.1', dataDir: join(work, 'emulator'), storage: { zoneName: 'zone', accessKey: 'bench-key' } })
const S3rver = createRequire(import.meta.url)('s3rver') as new (o: object) => S3rverInstance
const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(work, 's3rver'), configureBuckets: [{ name: 'bench' }] })
const { port } = await s3rver.run()
const s3Endpoint = `http://127.0.0.1:${port}`
const s3 = new S3Client({
  region: 'us-east-1',
  endpoint: s3Endpoint,
  forcePathStyle: true,
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  requestChecksumCalculation: 'WHEN_REQUIRED',
})
try {
  const db = join(work, 'cms.db')
  makeDatabase(db, scale * 1024 * MiB)
  const dbBytes = statSync(db).size
  console.log(`database: ${(dbBytes / MiB).toFixed(0)} MiB`)
  const base = await baseline(work, db, s3, 'bench', emulator.storage.endpoint)
  const run = await daemon(work, db, s3Endpoint, emulator.storage.endpoint)
  const rate = (s: number) => (dbBytes / MiB / s).toFixed(1)
  console.log(`sqlite3 .backup + gzip + upload to both: ${base.toFixed(1)} s (${rate(base)} MiB/s)`)
  console.log(
    `backup-daemon run (sqlite -> tar.gz -> s3 + host): ${run.seconds.toFixed(1)} s (${rate(run.seconds)} MiB/s), peak RSS ${run.peakMiB.toFixed(1)} MiB`,
  )
  printResult('daemon sqlite -> s3rver + host emulator vs sqlite3 .backup + gzip + upload', base / run.seconds, 'baseline throughput', '>= 0.9')
  printResult('daemon sqlite -> remote peak RSS vs 150 MiB', run.peakMiB / 150, `of 150 MiB (${run.peakMiB.toFixed(0)} MiB peak)`, '< 1')
} finally {
  s3.destroy()
  await s3rver.close()
  await emulator.close()
  rmSync(work, { recursive: true, force: true })
}
