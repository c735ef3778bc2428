/**
 * @module bench/daemon-restic
 * The daemon into a restic repository (issue 27) against the original service's pipeline, in one run:
 * - first run into a new repository vs `tar -cf - | zstd -3 -T0` of the same tree (reported, no target);
 * - a second run of the unchanged tree: >= 1.5x faster than that pipeline, adding < 1 MiB to the repository,
 *   by the served daemon (`support/servedDaemon.ts`: a service's scheduled runs, the daemon's nightly runs);
 *   the same runs by `backup-daemon run` (a new process each, as cron would: Node's start included) beside;
 * - 1% of the files changed: the repository grows by at most 2x the bytes changed;
 * - the daemon's peak RSS (VmHWM) < 150 MiB in every run;
 * - `BENCH_RESTIC_NIGHTS` nightly runs (default 30) with 1% of the files changed each night: the
 *   repository's size against the same nights kept as `tar.zst` archives.
 * The tree (>= 1 GiB: 40% in small files, the rest in four large ones; text and random 64 KiB blocks) is
 * generated once under the OS temp folder (`bench-restic-tree`) and reused; `BENCH_RESTIC_GIB` scales it,
 * `BENCH_RESTIC_FRESH=1` regenerates it. Over `BENCH_RESTIC_ROUNDS` rounds (default 2) the first run into a
 * new repository follows a pipeline, then `BENCH_RESTIC_UNCHANGED` (default 3) unchanged runs of each kind
 * alternate with the pipeline; the ratios reported are medians of the pairs (the machine's speed drifts within minutes).
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { peakRssMiB, printResult } from './support/measure.js'
import { serveDaemon } from './support/servedDaemon.js'

const MiB = 1 << 20
const bin = fileURLToPath(new URL('../backup-daemon/bin/backup-daemon.js', import.meta.url))
const scale = Number(process.env.BENCH_RESTIC_GIB ?? 1)
const rounds = Math.max(1, Number(process.env.BENCH_RESTIC_ROUNDS ?? 2))
const unchangedPerRound = Math.max(1, Number(process.env.BENCH_RESTIC_UNCHANGED ?? 3))
const nights = Number(process.env.BENCH_RESTIC_NIGHTS ?? 30)
const q = (path: string) => `'${path.replaceAll("'", "'\\''")}'`
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const text = Buffer.from(
  Array.from({ length: 300_000 }, (_, i) => `backup daemon snapshot ${i} restic repository chunk ${(i * 7919) % 100_003} media payload\n`).join(''),
)
const random = randomBytes(16 * MiB)

/** 64 KiB blocks, one in four random, the rest slices of text. */
function content(size: number): Buffer {
  const out = Buffer.allocUnsafe(size)
  for (let offset = 0, block = 0; offset < size; offset += 65536, block++) {
    const n = Math.min(65536, size - offset)
    const pool = block % 4 === 3 ? random : text
    const start = Math.floor(Math.random() * (pool.length - n))
    pool.copy(out, offset, start, start + n)
  }
  return out
}

function makeTree(dir: string, bytes: number): number {
  let written = 0
  for (let i = 0; written < bytes * 0.4; i++) {
    const folder = join(dir, 'small', `d${Math.floor(i / 200)}`)
    if (i % 200 === 0) mkdirSync(folder, { recursive: true })
    const size = 1024 + Math.floor(Math.random() * 127 * 1024)
    writeFileSync(join(folder, `f${i}.txt`), content(size))
    written += size
  }
  mkdirSync(join(dir, 'large'), { recursive: true })
  const large = Math.ceil((bytes - written) / 4)
  for (let i = 0; i < 4; i++) {
    for (let done = 0; done < large; done += 16 * MiB)
      writeFileSync(join(dir, 'large', `big${i}.bin`), content(Math.min(16 * MiB, large - done)), { flag: done ? 'a' : 'w' })
    written += large
  }
  return written
}

function cachedTree(): string {
  const dir = join(tmpdir(), 'bench-restic-tree')
  const marker = join(dir, '.bench-complete')
  if (existsSync(marker) && !process.env.BENCH_RESTIC_FRESH) return join(dir, 'tree')
  rmSync(dir, { recursive: true, force: true })
  const started = Date.now()
  writeFileSync(marker, String(makeTree(join(dir, 'tree'), Math.round(scale * 1.1 * 1024 * MiB))))
  console.log(`generated ${dir} in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  return join(dir, 'tree')
}

/** Bytes of every file below `dir`. */
function sizeOf(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size
  return total
}

/** `tar | zstd -3 -T0` of the tree: seconds and bytes written. */
function pipeline(tree: string, out: string): { seconds: number; bytes: number } {
  const start = process.hrtime.bigint()
  const result = spawnSync('sh', ['-c', `set -e; tar -cf - -C ${q(tree)} . | zstd -3 -T0 -q > ${q(out)}`], { stdio: 'inherit' })
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (result.status !== 0) throw new Error('tar | zstd failed')
  const bytes = statSync(out).size
  rmSync(out)
  return { seconds, bytes }
}

/** `backup-daemon run bench` into the repository of `work`; seconds and the child's peak RSS. */
async function daemonRun(work: string): Promise<{ seconds: number; peakMiB: number }> {
  const start = process.hrtime.bigint()
  const child = spawn(process.execPath, [bin, 'run', 'bench', '--config', join(work, 'bench.yaml')], { cwd: work, stdio: ['ignore', 'pipe', 'inherit'] })
  let log = ''
  child.stdout.on('data', (chunk) => (log += chunk))
  let peakMiB = 0
  const timer = setInterval(() => {
    try {
      const peak = peakRssMiB(child.pid!)
      if (Number.isFinite(peak)) peakMiB = Math.max(peakMiB, peak)
    } catch {}
  }, 50)
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  clearInterval(timer)
  if (code !== 0) throw new Error(`backup-daemon run failed (${code}):\n${log}`)
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, peakMiB }
}

function newWork(tree: string): string {
  const work = mkdtempSync(join(tmpdir(), 'bench-restic-'))
  writeFileSync(
    join(work, 'bench.yaml'),
    `dataDir: ./data\nserver: { address: '127.0.0.1:0', auth: { enabled: false } }\njobs:\n  - name: bench\n    sources: [{ type: local, name: tree, path: ${JSON.stringify(tree)} }]\n    storages: [{ type: restic, name: dedup, repository: ./repo, password: bench-password }]\n`,
  )
  return work
}

/** Rewrites 1% of the small files with new content of the same size; returns the bytes changed. */
function changeOnePercent(tree: string): number {
  const small = readdirSync(join(tree, 'small'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
  let changed = 0
  for (let i = 0; i < Math.ceil(small.length / 100); i++) {
    const entry = small[Math.floor(Math.random() * small.length)]!
    const path = join(entry.parentPath, entry.name)
    const size = statSync(path).size
    writeFileSync(path, content(size))
    changed += size
  }
  return changed
}

async function main(): Promise<void> {
  const tree = cachedTree()
  const treeBytes = sizeOf(tree)
  console.log(`tree: ${mib(treeBytes)}`)
  spawnSync('sh', ['-c', `tar -cf - -C ${q(tree)} . | cat > /dev/null`], { stdio: 'inherit' })
  const zstOut = join(tmpdir(), 'bench-restic.tar.zst')
  let peak = 0
  const firstRatios: number[] = []
  const unchanged = { cli: [] as number[], cliSeconds: [] as number[], served: [] as number[], servedSeconds: [] as number[] }
  let added = 0
  let zstBytes = 0
  let work = ''
  for (let round = 1; round <= rounds; round++) {
    if (work) rmSync(work, { recursive: true, force: true })
    work = newWork(tree)
    const base = pipeline(tree, zstOut)
    zstBytes = base.bytes
    const first = await daemonRun(work)
    firstRatios.push(base.seconds / first.seconds)
    const before = sizeOf(join(work, 'repo'))
    peak = Math.max(peak, first.peakMiB)
    const line: string[] = []
    // The unchanged run alternates with the pipeline, `unchangedPerRound` times: each pair is one ratio.
    for (let i = 0; i < unchangedPerRound; i++) {
      const again = pipeline(tree, zstOut)
      const second = await daemonRun(work)
      peak = Math.max(peak, second.peakMiB)
      unchanged.cli.push(again.seconds / second.seconds)
      unchanged.cliSeconds.push(second.seconds)
      line.push(`${second.seconds.toFixed(2)} s vs ${again.seconds.toFixed(2)} s (${(again.seconds / second.seconds).toFixed(2)}x)`)
    }
    // The same runs by the daemon as a service (`serve`, its nightly runs): no process start, no module loading.
    const served = await serveDaemon(join(work, 'bench.yaml'), { cwd: work })
    const servedLine: string[] = []
    try {
      for (let i = 0; i < unchangedPerRound; i++) {
        const again = pipeline(tree, zstOut)
        const seconds = (await served.run('bench')).durationMs / 1000
        unchanged.served.push(again.seconds / seconds)
        unchanged.servedSeconds.push(seconds)
        servedLine.push(`${seconds.toFixed(2)} s vs ${again.seconds.toFixed(2)} s (${(again.seconds / seconds).toFixed(2)}x)`)
      }
      peak = Math.max(peak, peakRssMiB(served.child.pid!))
    } finally {
      await served.stop()
    }
    added = (sizeOf(join(work, 'repo')) - before) / (2 * unchangedPerRound)
    console.log(
      `round ${round}: zstd pipeline ${base.seconds.toFixed(2)} s (${mib(base.bytes)}), first run ${first.seconds.toFixed(2)} s (repository ${mib(before)}); unchanged runs ${line.join(', ')}; served ${servedLine.join(', ')}; +${(added / 1024).toFixed(1)} KiB each`,
    )
  }
  printResult('restic-first-run', median(firstRatios), `the speed of tar | zstd -3 -T0 (first run into a new repository; median of ${firstRatios.length})`)
  const pairs = (ratios: number[], seconds: number[]) =>
    `median of ${ratios.length} alternating pairs, lowest ${Math.min(...ratios).toFixed(2)}x; run median ${median(seconds).toFixed(2)} s`
  printResult(
    'restic-unchanged-run',
    median(unchanged.served),
    `the speed of tar | zstd -3 -T0 (the served daemon, as its nightly runs are: ${pairs(unchanged.served, unchanged.servedSeconds)}), +${(added / 1024).toFixed(1)} KiB (target < 1024 KiB)`,
    '>= 1.5x',
  )
  printResult(
    'restic-unchanged-run-cli',
    median(unchanged.cli),
    `the speed of tar | zstd -3 -T0 (\`backup-daemon run\`, a new process per run: Node's start and module loading included; ${pairs(unchanged.cli, unchanged.cliSeconds)})`,
  )

  const before = sizeOf(join(work, 'repo'))
  const changed = changeOnePercent(tree)
  const third = await daemonRun(work)
  peak = Math.max(peak, third.peakMiB)
  const growth = sizeOf(join(work, 'repo')) - before
  printResult(
    'restic-1pct-changed',
    growth / changed,
    `the changed bytes added (${mib(growth)} for ${mib(changed)} changed, ${third.seconds.toFixed(2)} s)`,
    '<= 2x',
  )
  printResult('restic-peak-rss', peak / 150, `of 150 MiB (peak RSS ${peak.toFixed(0)} MiB)`, '< 1x')

  if (nights > 0) {
    let archives = 0
    for (let night = 1; night <= nights; night++) {
      changeOnePercent(tree)
      const run = await daemonRun(work)
      peak = Math.max(peak, run.peakMiB)
      archives += pipeline(tree, zstOut).bytes
    }
    const repository = sizeOf(join(work, 'repo'))
    // The repository holds the runs above too; the archives count only the nights (the repository's side is the larger).
    printResult(
      'restic-nights-storage',
      archives / repository,
      `less storage than ${nights} nightly tar.zst archives (repository ${mib(repository)}, archives ${mib(archives)}, one archive ${mib(zstBytes)})`,
    )
  }
  rmSync(work, { recursive: true, force: true })
}

await main()
