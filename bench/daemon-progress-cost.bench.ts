/**
 * @module bench/daemon-progress-cost
 * What live progress costs a backup (issue 14): the same job run in-process (`runJob`, local source,
 * local storage) with the engine's `ProgressTracker` (timer every 250 ms, snapshots taken as a stream
 * client would) against `noopTracker` (nothing counted), alternating, on the same tree, in the same run.
 * Two cases: `tar` (no compression: the per-entry and per-byte overhead is most visible) and `tar.gz`
 * (the usual job). A third line adds the first-run estimate (the local tree counted up front, beside
 * the run). Target: progress costs < 2% of throughput (ratio >= 0.98).
 *
 * The ratio is of CPU time (user + system of the whole process, gzip worker threads included) per run,
 * median of the rounds: on a shared two-core machine wall-clock times of the same run vary by 3x with
 * the neighbours' load, while the CPU a run spends is what progress tracking could add to. Wall-clock
 * figures (fastest run of each variant) are printed beside it. The tree (~270 MiB: 6000 small files
 * and four large ones) is generated once into the OS temp folder and reused (`BENCH_PROGRESS_FRESH=1`
 * regenerates it); `BENCH_PROGRESS_ROUNDS` sets the runs per variant (default 7).
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { printResult } from './support/measure.js'

// The daemon's sources belong to its own TypeScript project: loaded by URL, with only what is used typed.
const daemonModule = (path: string) => new URL(`../backup-daemon/src/${path}`, import.meta.url).href
interface Tracker {
  start(): Tracker
  stop(): void
  bytesRead(): number
  totalBytes: number | undefined
}
interface JobConfig {
  storages: unknown[]
}
const { openJobRepository } = (await import(daemonModule('repository/jobRepository.ts'))) as { openJobRepository(job: JobConfig): unknown }
const { loadConfig } = (await import(daemonModule('config/loadConfig.ts'))) as { loadConfig(file: string): Promise<{ jobs: JobConfig[] }> }
const { countLocalTrees } = (await import(daemonModule('sources/local/countLocalTrees.ts'))) as {
  countLocalTrees(trees: { path: string }[], signal: AbortSignal): Promise<number>
}
const { ProgressTracker } = (await import(daemonModule('engine/progress/ProgressTracker.ts'))) as {
  ProgressTracker: new (options: { kind: 'backup'; startedAt: Date; storages: string[]; onTick(): void }) => Tracker
}
const { noopTracker } = (await import(daemonModule('engine/progress/RunTracker.ts'))) as { noopTracker: unknown }
const { runJob } = (await import(daemonModule('engine/runJob.ts'))) as {
  runJob(options: { job: JobConfig; repository: unknown; signal: AbortSignal; log(): void; tracker: unknown }): Promise<unknown>
}

const MiB = 1 << 20
const rounds = Number(process.env.BENCH_PROGRESS_ROUNDS ?? 7)
const tree = join(tmpdir(), 'bench-daemon-progress-tree')

function makeTree(): number {
  rmSync(tree, { recursive: true, force: true })
  const text = Buffer.from('backup daemon progress snapshot archive stream storage '.repeat(20_000))
  let total = 0
  for (let i = 0; i < 6000; i++) {
    const folder = join(tree, 'small', `d${Math.floor(i / 200)}`)
    if (i % 200 === 0) mkdirSync(folder, { recursive: true })
    const size = 1024 + ((i * 7919) % (48 * 1024))
    const body = i % 3 === 0 ? randomBytes(size) : text.subarray(i % 1000, (i % 1000) + size)
    writeFileSync(join(folder, `f${i}.dat`), body)
    total += size
  }
  mkdirSync(join(tree, 'large'), { recursive: true })
  for (let i = 0; i < 4; i++) {
    const parts: Buffer[] = []
    for (let j = 0; j < 32; j++) parts.push(j % 2 ? randomBytes(MiB) : text.subarray(0, MiB))
    writeFileSync(join(tree, 'large', `big${i}.bin`), Buffer.concat(parts))
    total += 32 * MiB
  }
  writeFileSync(join(tree, '.complete'), String(total))
  return total
}

async function jobFor(dir: string, compression: 'tar' | 'tar.gz') {
  const file = join(dir, `job-${compression.replace('.', '-')}.yaml`)
  writeFileSync(
    file,
    JSON.stringify({
      dataDir: join(dir, 'data'),
      jobs: [
        {
          name: 'bench',
          compression,
          sources: [{ type: 'local', name: 'tree', path: tree }],
          storages: [{ type: 'local', name: 'disk', path: join(dir, 'out') }],
        },
      ],
    }),
  )
  return (await loadConfig(file)).jobs[0]!
}

type Variant = 'noop' | 'progress' | 'progress+count'

interface Sample {
  wall: number
  cpu: number
}

async function once(dir: string, compression: 'tar' | 'tar.gz', variant: Variant): Promise<Sample> {
  const job = await jobFor(dir, compression)
  rmSync(join(dir, 'out'), { recursive: true, force: true })
  mkdirSync(join(dir, 'out'))
  const repository = openJobRepository(job)
  const controller = new AbortController()
  let progress: Tracker | undefined
  let snapshots = 0
  if (variant !== 'noop') {
    progress = new ProgressTracker({ kind: 'backup', startedAt: new Date(), storages: ['disk'], onTick: () => void snapshots++ }).start()
    const counted = progress
    if (variant === 'progress+count')
      countLocalTrees([{ path: tree }], controller.signal).then(
        (total) => (counted.totalBytes = total),
        () => {},
      )
  }
  const tracker = progress ?? noopTracker
  const started = process.hrtime.bigint()
  const cpuBefore = process.cpuUsage()
  await runJob({ job, repository, signal: controller.signal, log: () => {}, tracker })
  const cpuUsed = process.cpuUsage(cpuBefore)
  const sample = { wall: Number(process.hrtime.bigint() - started) / 1e9, cpu: (cpuUsed.user + cpuUsed.system) / 1e6 }
  controller.abort()
  if (progress) {
    progress.stop()
    if (progress.bytesRead() === 0) throw new Error('the tracker counted nothing')
  }
  return sample
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function main() {
  const fresh = !existsSync(join(tree, '.complete')) || process.env.BENCH_PROGRESS_FRESH
  const total = fresh ? makeTree() : Number(readFileSync(join(tree, '.complete'), 'utf8'))
  console.log(`tree: ${(total / MiB).toFixed(0)} MiB in ${tree}; ${rounds} round(s) per variant, alternating`)
  const dir = mkdtempSync(join(tmpdir(), 'bench-progress-'))
  try {
    for (const compression of ['tar', 'tar.gz'] as const) {
      const variants: Variant[] = compression === 'tar' ? ['noop', 'progress', 'progress+count'] : ['noop', 'progress']
      const times = new Map<Variant, Sample[]>(variants.map((v) => [v, []]))
      // Warm-up (page cache, JIT) not measured.
      await once(dir, compression, 'noop')
      for (let round = 0; round < rounds; round++) {
        // Alternate the order so drift on a shared machine hits every variant alike.
        const order = round % 2 ? [...variants].reverse() : variants
        for (const variant of order) times.get(variant)!.push(await once(dir, compression, variant))
      }
      const cpu = (v: Variant) => median(times.get(v)!.map((s) => s.cpu))
      const fastest = (v: Variant) => Math.min(...times.get(v)!.map((s) => s.wall))
      for (const variant of variants) {
        const samples = times.get(variant)!
        console.log(
          `${compression} ${variant}: CPU median ${cpu(variant).toFixed(3)} s (${(total / MiB / cpu(variant)).toFixed(0)} MiB per CPU-second); ` +
            `wall fastest ${fastest(variant).toFixed(2)} s (runs: ${samples.map((s) => s.wall.toFixed(2)).join(', ')})`,
        )
      }
      const what = 'throughput per CPU-second with progress tracking vs a no-op tracker'
      printResult(`progress-cost ${compression}`, cpu('noop') / cpu('progress'), what, '>= 0.98')
      console.log(`(wall clock, fastest runs: ${(fastest('noop') / fastest('progress')).toFixed(2)}x)`)
      if (times.has('progress+count')) {
        const first = 'throughput per CPU-second with progress and the tree counted up front vs a no-op tracker'
        printResult(`progress-cost ${compression} first run`, cpu('noop') / cpu('progress+count'), first)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
