/**
 * @module bench/daemon-record-cost
 * What the snapshot's record costs a backup (issue 25: < 5% of throughput): the same job run in-process
 * (`runJob`, local source, local storage: walk, tar, the archive's sha256, writes) with the record (every
 * file's size and digest, `tar/snapshotRecord.ts`) against none (`BACKUP_DAEMON_RECORD=off`), alternating,
 * in the same run. Cases: plain `tar` (the local source's worker digests beside the walk: the per-byte
 * cost is most visible) with each candidate digest (crc32, the one chosen; md5; sha256), plain `tar` of a
 * tree of 20k tiny files (one record line each: the per-file cost), and `tar.gz` (the usual job) with crc32.
 *
 * The ratio is of CPU time (user + system of the whole process, worker threads included), median of the
 * rounds, as in `daemon-progress-cost`: wall-clock times on a shared two-core machine vary by 3x with the
 * neighbours' load. The crc32 case also prints the wall-clock ratio (throughput as an operator sees it),
 * to be read on an idle machine only. The trees (~270 MiB mixed, 20k tiny files) are generated once into the OS temp folder
 * (`BENCH_RECORD_FRESH=1` regenerates them); `BENCH_RECORD_ROUNDS` sets the runs per variant (default 5);
 * `BENCH_RECORD_CASES` and `BENCH_RECORD_CRC32_ONLY` narrow the run (below).
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { printResult } from './support/measure.js'

// The daemon's sources belong to its own TypeScript project: loaded by URL, with only what is used typed.
const daemonModule = (path: string) => new URL(`../backup-daemon/src/${path}`, import.meta.url).href
type Digest = 'crc32' | 'md5' | 'sha256'
interface JobConfig {
  storages: unknown[]
}
const { openJobRepository } = (await import(daemonModule('repository/jobRepository.ts'))) as { openJobRepository(job: JobConfig): unknown }
const { loadConfig } = (await import(daemonModule('config/loadConfig.ts'))) as { loadConfig(file: string): Promise<{ jobs: JobConfig[] }> }
const { noopTracker } = (await import(daemonModule('engine/progress/RunTracker.ts'))) as { noopTracker: unknown }
const { runJob } = (await import(daemonModule('engine/runJob.ts'))) as {
  runJob(options: { job: JobConfig; repository: unknown; signal: AbortSignal; log(): void; tracker: unknown }): Promise<unknown>
}
const MiB = 1 << 20
const rounds = Number(process.env.BENCH_RECORD_ROUNDS ?? 5)
const mixed = join(tmpdir(), 'bench-daemon-record-mixed')
const tiny = join(tmpdir(), 'bench-daemon-record-tiny')
// While working on one cost: `BENCH_RECORD_CASES=tar tiny files` (comma-separated case names) runs only those,
// `BENCH_RECORD_CRC32_ONLY=1` leaves out the md5 and sha256 rows of the plain `tar` case.
const picked = process.env.BENCH_RECORD_CASES?.split(',').map((name) => name.trim())
const onlyCrc32 = Boolean(process.env.BENCH_RECORD_CRC32_ONLY)

function makeMixed(): number {
  rmSync(mixed, { recursive: true, force: true })
  const text = Buffer.from('backup daemon record digest archive stream storage '.repeat(20_000))
  let total = 0
  for (let i = 0; i < 6000; i++) {
    const folder = join(mixed, 'small', `d${Math.floor(i / 200)}`)
    if (i % 200 === 0) mkdirSync(folder, { recursive: true })
    const size = 1024 + ((i * 7919) % (48 * 1024))
    writeFileSync(join(folder, `f${i}.dat`), i % 3 === 0 ? randomBytes(size) : text.subarray(i % 1000, (i % 1000) + size))
    total += size
  }
  mkdirSync(join(mixed, 'large'), { recursive: true })
  for (let i = 0; i < 4; i++) {
    const parts: Buffer[] = []
    for (let j = 0; j < 32; j++) parts.push(j % 2 ? randomBytes(MiB) : text.subarray(0, MiB))
    writeFileSync(join(mixed, 'large', `big${i}.bin`), Buffer.concat(parts))
    total += 32 * MiB
  }
  writeFileSync(join(mixed, '.complete'), String(total))
  return total
}

function makeTiny(): number {
  rmSync(tiny, { recursive: true, force: true })
  for (let i = 0; i < 20_000; i++) {
    const folder = join(tiny, `d${Math.floor(i / 500)}`)
    if (i % 500 === 0) mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `f${i}`), randomBytes(64 + (i % 200)))
  }
  writeFileSync(join(tiny, '.complete'), '20000')
  return 20_000
}

interface Case {
  name: string
  tree: string
  compression: 'tar' | 'tar.gz'
  digests: Digest[]
}

let dir = ''

/** CPU and wall-clock seconds of one backup run (into an emptied local storage). */
async function once(kase: Case, record: Digest | false): Promise<{ cpu: number; wall: number }> {
  const file = join(dir, 'job.yaml')
  const job = {
    name: 'bench',
    compression: kase.compression,
    sources: [{ type: 'local', name: 'tree', path: kase.tree }],
    storages: [{ type: 'local', name: 'disk', path: join(dir, 'out') }],
  }
  writeFileSync(file, JSON.stringify({ dataDir: join(dir, 'data'), jobs: [job] }))
  const config = (await loadConfig(file)).jobs[0]!
  rmSync(join(dir, 'out'), { recursive: true, force: true })
  mkdirSync(join(dir, 'out'))
  process.env.BACKUP_DAEMON_RECORD = record || 'off'
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  await runJob({ job: config, repository: openJobRepository(config), signal: new AbortController().signal, log: () => {}, tracker: noopTracker })
  const wall = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpuBefore)
  delete process.env.BACKUP_DAEMON_RECORD
  return { cpu: (used.user + used.system) / 1e6, wall }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function main() {
  const fresh = Boolean(process.env.BENCH_RECORD_FRESH)
  const total = !fresh && existsSync(join(mixed, '.complete')) ? Number(readFileSync(join(mixed, '.complete'), 'utf8')) : makeMixed()
  if (fresh || !existsSync(join(tiny, '.complete'))) makeTiny()
  console.log(`trees: ${(total / MiB).toFixed(0)} MiB mixed in ${mixed}, 20000 tiny files in ${tiny}; ${rounds} round(s) per variant, alternating`)
  const all: Case[] = [
    { name: 'tar', tree: mixed, compression: 'tar', digests: onlyCrc32 ? ['crc32'] : ['crc32', 'md5', 'sha256'] },
    { name: 'tar tiny files', tree: tiny, compression: 'tar', digests: ['crc32'] },
    { name: 'tar.gz', tree: mixed, compression: 'tar.gz', digests: ['crc32'] },
  ]
  const cases = picked ? all.filter((kase) => picked.includes(kase.name)) : all
  dir = mkdtempSync(join(tmpdir(), 'bench-record-'))
  try {
    await runCases(cases)
  } finally {
    // The runs' storage and data folders (~100 MiB): the trees are what is kept.
    rmSync(dir, { recursive: true, force: true })
  }
}

async function runCases(cases: Case[]) {
  for (const kase of cases) {
    const variants: (Digest | false)[] = [false, ...kase.digests]
    const times = new Map<Digest | false, number[]>(variants.map((v) => [v, []]))
    const walls = new Map<Digest | false, number[]>(variants.map((v) => [v, []]))
    await once(kase, false) // warm-up (page cache, JIT), not measured
    for (let round = 0; round < rounds; round++) {
      // Alternate the order so drift on a shared machine hits every variant alike.
      const order = round % 2 ? [...variants].reverse() : variants
      for (const variant of order) {
        const { cpu, wall } = await once(kase, variant)
        times.get(variant)!.push(cpu)
        walls.get(variant)!.push(wall)
      }
    }
    const cpu = (v: Digest | false) => median(times.get(v)!)
    const wall = (v: Digest | false) => median(walls.get(v)!)
    for (const variant of variants)
      console.log(
        `${kase.name} ${variant || 'no record'}: wall median ${wall(variant).toFixed(3)} s, CPU median ${cpu(variant).toFixed(3)} s (runs: ${times
          .get(variant)!
          .map((t) => t.toFixed(2))
          .join(', ')})`,
      )
    for (const digest of kase.digests) {
      const chosen = digest === 'crc32'
      printResult(
        `record-cost ${kase.name} ${digest}`,
        cpu(false) / cpu(digest),
        'backup throughput per CPU-second with the record vs without',
        chosen ? '>= 0.95' : undefined,
      )
      // Throughput as an operator sees it (bytes per second of the run): the digest runs in the local
      // source's worker beside the walk, so it may cost less time than CPU. Trust it on an idle machine only.
      if (chosen)
        printResult(`record-cost ${kase.name} ${digest} wall-clock`, wall(false) / wall(digest), 'backup throughput (wall-clock) with the record vs without')
    }
  }
}

await main()
