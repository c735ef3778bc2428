/**
 * @module bench/daemon-throughput
 * Backs up a generated tree (>= 1 GiB: many small files and a few large ones, random bytes mixed with
 * compressible text) with the daemon's `backup-daemon run` (into local storage, a real child process)
 * and with the shell pipelines the original service runs, in the same run:
 * - daemon `tar.gz` vs `tar -czf` (one core) and vs `tar -cf - | pigz -6` (every core);
 * - daemon `tar.zst` vs `tar -cf - | zstd -3 -T0`;
 * - daemon `tar` on a tree of 200k tiny files vs `tar -cf` to a file (per-entry cost);
 * - the daemon's peak RSS (VmHWM) on the full tree and on half of it (flat in the data size);
 * - beside each `run`, the same job run by a served daemon (`backup-daemon serve`, the run started through
 *   the API), which pays no process start, as the original service (a server too) does not (no target).
 * Beside them it prints ceilings (no target): the compressor alone on an already written tar (`pigz`,
 * `zstd`: when it fills every core, anything else the daemon must do, such as the sha256 of every part,
 * adds to the wall time; the daemon's gzip can pass `pigz` alone by storing random-looking stretches),
 * and Node's bare cost of the four file-system calls a file needs (open, fstat, read, close; no tar,
 * hash or write), on one and on two threads.
 * Each tree is read once before it is timed, so no run pays for a cold page cache. The machines are
 * shared and their speed drifts by 5-10% within minutes, so each daemon run alternates with its baseline
 * over `BENCH_DAEMON_ROUNDS` rounds (default 2), and a ratio is the baseline's total time over the daemon's.
 * Every daemon run is made under the bench's own Node and under Node 24 (`bench/support/nodes.ts`: where
 * `.ci/run` installs it, or `BENCH_NODE24`), alternating in the same rounds against the same baseline: a
 * row per Node, and a `node 24 vs node 20` row per comparison (issue 27: no archive row slower on Node 24),
 * with each run's CPU seconds beside its wall time (steadier when the neighbours' load varies).
 * Targets (issue 13): >= 1.0x pigz, >= 1.0x the zstd pipeline, >= 1.0x `tar -cf` on tiny files,
 * peak RSS < 150 MiB and flat. The trees are generated once into the OS temp folder and reused
 * (`BENCH_DAEMON_FRESH=1` regenerates them, `BENCH_DAEMON_PREPARE=1` only generates them, e.g. while
 * the machine is busy); `BENCH_DAEMON_GIB` scales the large one. `BENCH_DAEMON_ONLY=tiny` (or `gz`, `zst`,
 * comma-separated) runs only those comparisons, for quick iterations.
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { cpuSeconds, peakRssMiB, printResult } from './support/measure.js'
import { nodeBinaries, type NodeBinary } from './support/nodes.js'
import { serveDaemon } from './support/servedDaemon.js'

const MiB = 1 << 20
const bin = fileURLToPath(new URL('../backup-daemon/bin/backup-daemon.js', import.meta.url))
const scale = Number(process.env.BENCH_DAEMON_GIB ?? 1)
const tinyCount = Number(process.env.BENCH_DAEMON_TINY ?? 200_000)
const only = process.env.BENCH_DAEMON_ONLY?.split(',')
const rounds = Math.max(1, Number(process.env.BENCH_DAEMON_ROUNDS ?? 2))
const runs = (part: string) => !only || only.includes(part)

const words =
  'the of and to in backup daemon snapshot archive stream storage media payload schedule retention manifest part chunk compress gzip tar local source job run cancel log line status config server host'.split(
    ' ',
  )

/** A pool of text (compresses about 4:1) and one of random bytes; files are slices of both. */
function pools(): { text: Buffer; random: Buffer } {
  const parts: string[] = []
  let size = 0
  while (size < 16 * MiB) {
    const line =
      Array.from({ length: 8 + Math.floor(Math.random() * 10) }, () => words[Math.floor(Math.random() * words.length)]).join(' ') +
      ` ${Math.floor(Math.random() * 1e9)}\n`
    parts.push(line)
    size += line.length
  }
  return { text: Buffer.from(parts.join('')), random: randomBytes(16 * MiB) }
}

/** File content: 64 KiB blocks, one in four random, the rest text. */
function content(p: ReturnType<typeof pools>, size: number): Buffer {
  const out = Buffer.allocUnsafe(size)
  for (let offset = 0, block = 0; offset < size; offset += 64 * 1024, block++) {
    const n = Math.min(64 * 1024, size - offset)
    const pool = block % 4 === 3 ? p.random : p.text
    const start = Math.floor(Math.random() * (pool.length - n))
    pool.copy(out, offset, start, start + n)
  }
  return out
}

/** Half of the tree: ~40% in 12k small files (1 to 64 KiB), the rest in four large files. */
function makeHalf(dir: string, bytes: number, p: ReturnType<typeof pools>): number {
  let written = 0
  const smallBudget = bytes * 0.4
  for (let i = 0; written < smallBudget; i++) {
    const folder = join(dir, 'small', `d${Math.floor(i / 200)}`)
    if (i % 200 === 0) mkdirSync(folder, { recursive: true })
    const size = 1024 + Math.floor(Math.random() * 63 * 1024)
    writeFileSync(join(folder, `f${i}.txt`), content(p, size))
    written += size
  }
  mkdirSync(join(dir, 'large'), { recursive: true })
  const large = Math.ceil((bytes - written) / 4)
  for (let i = 0; i < 4; i++) {
    // Written in 16 MiB pieces so the generator itself stays small.
    const file = join(dir, 'large', `big${i}.bin`)
    for (let done = 0; done < large; done += 16 * MiB) writeFileSync(file, content(p, Math.min(16 * MiB, large - done)), { flag: done ? 'a' : 'w' })
    written += large
  }
  return written
}

/** 200k files of 0 to 2 KiB in folders of 1000: what costs here is per entry, not per byte. */
function makeTiny(dir: string, count: number, p: ReturnType<typeof pools>): number {
  let written = 0
  for (let i = 0; i < count; i++) {
    const folder = join(dir, `d${Math.floor(i / 1000)}`)
    if (i % 1000 === 0) mkdirSync(folder, { recursive: true })
    const size = Math.floor(Math.random() * 2048)
    const start = Math.floor(Math.random() * (p.text.length - size))
    writeFileSync(join(folder, `t${i}.txt`), p.text.subarray(start, start + size))
    written += size
  }
  return written
}

/** A tree generated once under the OS temp folder and reused by later runs (a marker says it is whole). */
function cachedTree(name: string, make: (dir: string) => number): { dir: string; bytes: number } {
  const dir = join(tmpdir(), name)
  const marker = join(dir, '.bench-complete')
  if (existsSync(marker) && !process.env.BENCH_DAEMON_FRESH) return { dir: join(dir, 'tree'), bytes: Number(readFileSync(marker, 'utf8')) }
  rmSync(dir, { recursive: true, force: true })
  const started = Date.now()
  const bytes = make(join(dir, 'tree'))
  writeFileSync(marker, String(bytes))
  console.log(`generated ${dir} in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  return { dir: join(dir, 'tree'), bytes }
}

/** Runs a shell pipeline (fixed strings, paths quoted) and returns its seconds and output size (`out` is removed unless `remove` is false). */
function timeShell(script: string, out: string, remove = true): { seconds: number; outBytes: number } {
  const start = process.hrtime.bigint()
  const result = spawnSync('sh', ['-c', `set -e; ${script}`], { stdio: 'inherit' })
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (result.status !== 0) throw new Error(`${script} failed`)
  const outBytes = statSync(out).size
  if (remove) rmSync(out)
  return { seconds, outBytes }
}

const q = (path: string) => `'${path.replaceAll("'", "'\\''")}'`

/** Reads every file of `dir` once (into the page cache), so the first timed run does not pay for the disk. */
function warm(dir: string): void {
  // Through a pipe: GNU tar skips reading the files when its output is /dev/null.
  spawnSync('sh', ['-c', `tar -cf - -C ${q(dir)} . | cat > /dev/null`], { stdio: 'inherit' })
}

/**
 * Node's least cost for a tree of small files: open (no link followed), fstat, read and close per file, the
 * calls the daemon's walk makes, with nothing else (no tar, no hash, no write), on `threads` worker
 * threads each taking every `threads`-th folder. Seconds.
 */
async function bareWalk(dir: string, threads: number): Promise<number> {
  const folders = readdirSync(dir).sort()
  const body = `
    const { closeSync, constants, fstatSync, openSync, readdirSync, readSync } = require('node:fs')
    const { workerData, parentPort } = require('node:worker_threads')
    const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
    const buffer = Buffer.allocUnsafe(1 << 20)
    let bytes = 0
    for (const folder of workerData.folders) {
      const base = workerData.dir + '/' + folder
      for (const name of readdirSync(base)) {
        const fd = openSync(base + '/' + name, flags)
        const size = fstatSync(fd).size
        bytes += readSync(fd, buffer, 0, Math.min(size + 1, buffer.length), null)
        closeSync(fd)
      }
    }
    parentPort.postMessage(bytes)`
  const start = process.hrtime.bigint()
  await Promise.all(
    Array.from(
      { length: threads },
      (_, i) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(body, { eval: true, workerData: { dir, folders: folders.filter((_, j) => j % threads === i) } })
          worker.once('message', resolve).once('error', reject)
        }),
    ),
  )
  return Number(process.hrtime.bigint() - start) / 1e9
}

/** Writes the config of a daemon backing up `root` as job `bench` into `./out-<label>`; returns its path. */
function writeBenchConfig(work: string, root: string, label: string, compression: string, server?: string): string {
  const config = join(work, `${label}.yaml`)
  writeFileSync(
    config,
    `dataDir: ./data-${label}\n${server ? `${server}\n` : ''}jobs:\n  - name: bench\n    compression: ${compression}\n    sources: [{ type: local, name: tree, path: ${JSON.stringify(root)} }]\n    storages: [{ type: local, name: out, path: ./out-${label} }]\n`,
  )
  return config
}

/** Size of the archive parts a run left in `./out-<label>/bench` (manifests aside); removes them. */
function takeOutput(work: string, label: string): number {
  const outDir = join(work, `out-${label}`, 'bench')
  const outBytes = readdirSync(outDir)
    .filter((f) => !f.endsWith('.manifest.json'))
    .reduce((sum, f) => sum + statSync(join(outDir, f)).size, 0)
  rmSync(outDir, { recursive: true, force: true })
  return outBytes
}

/**
 * Samples a live child's peak RSS (VmHWM) and CPU time every 50 ms until `stop()`; `peak()` is the highest
 * RSS seen, `cpu()` the CPU seconds at the last sample (up to 50 ms short for a process that exits).
 */
function watchPeakRss(pid: number): { peak(): number; cpu(): number; stop(): void } {
  let peakMiB = 0
  let cpu = 0
  const sample = () => {
    try {
      const peak = peakRssMiB(pid)
      // An exited (zombie) process has no VmHWM line any more, and its CPU times are kept as they were.
      if (Number.isFinite(peak)) {
        peakMiB = Math.max(peakMiB, peak)
        cpu = cpuSeconds(pid)
      }
    } catch {}
  }
  const timer = setInterval(sample, 50)
  return {
    peak: () => peakMiB,
    cpu: () => {
      sample()
      return cpu
    },
    stop: () => clearInterval(timer),
  }
}

/** Runs `backup-daemon run bench` on `root` under `node`; returns seconds, the child's peak RSS and the archive size. */
async function timeDaemon(
  work: string,
  root: string,
  label: string,
  compression: string,
  node: NodeBinary,
  env: NodeJS.ProcessEnv = {},
): Promise<Timed & { peakMiB: number }> {
  const config = writeBenchConfig(work, root, label, compression)
  const start = process.hrtime.bigint()
  const child = spawn(node.path, [bin, 'run', 'bench', '--config', config], {
    cwd: work,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let log = ''
  child.stdout.on('data', (chunk) => (log += chunk))
  const rss = watchPeakRss(child.pid!)
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  rss.stop()
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (code !== 0) throw new Error(`backup-daemon run failed (${code}):\n${log}`)
  const outBytes = takeOutput(work, label)
  rmSync(join(work, `data-${label}`), { recursive: true, force: true })
  return { seconds, peakMiB: rss.peak(), outBytes, cpuSeconds: rss.cpu() }
}

/**
 * A running daemon (`support/servedDaemon.ts`) with the job `bench` on `root`: the run of a served daemon,
 * which pays no process start and no module loading, as the original service's runs (a server too) do not.
 * Its peak RSS is the serving process's, over every run so far.
 */
async function servedDaemon(
  work: string,
  root: string,
  label: string,
  compression: string,
  node: NodeBinary,
): Promise<{ run(): Promise<Timed>; stop(): Promise<void> }> {
  const config = writeBenchConfig(work, root, label, compression, "server: { address: '127.0.0.1:0', auth: { enabled: false } }")
  const daemon = await serveDaemon(config, { cwd: work, node: node.path })
  const rss = watchPeakRss(daemon.child.pid!)
  return {
    async run() {
      const cpuBefore = rss.cpu()
      const record = await daemon.run('bench')
      return { seconds: record.durationMs / 1000, peakMiB: rss.peak(), outBytes: takeOutput(work, label), cpuSeconds: rss.cpu() - cpuBefore }
    },
    async stop() {
      rss.stop()
      await daemon.stop()
      rmSync(join(work, `out-${label}`), { recursive: true, force: true })
      rmSync(join(work, `data-${label}`), { recursive: true, force: true })
    },
  }
}

interface Timed {
  seconds: number
  outBytes: number
  peakMiB?: number
  /** The daemon's CPU seconds (every thread; the served daemon's during the run): steadier than wall time on a shared machine. */
  cpuSeconds?: number
}

/**
 * Runs `baseline` and each of `daemons` in turn, `rounds` times: all see the same drift of the machine's
 * speed. Returns their mean times (a ratio of two is a result), the last output sizes and each daemon's
 * highest peak RSS; prints each round's ratios.
 */
async function alternate<Name extends string>(
  what: string,
  baseline: () => Timed,
  daemons: Record<Name, () => Promise<Timed>>,
): Promise<{ baseline: Timed } & Record<Name, Timed & { peakMiB: number }>> {
  const base: Timed = { seconds: 0, outBytes: 0 }
  const names = Object.keys(daemons) as Name[]
  const ours = Object.fromEntries(names.map((name) => [name, { seconds: 0, outBytes: 0, peakMiB: 0, cpuSeconds: 0 }])) as Record<
    Name,
    Timed & { peakMiB: number; cpuSeconds: number }
  >
  const perRound = Object.fromEntries(names.map((name) => [name, [] as string[]])) as Record<Name, string[]>
  for (let round = 0; round < rounds; round++) {
    const b = baseline()
    base.seconds += b.seconds
    base.outBytes = b.outBytes
    for (const name of names) {
      const d = await daemons[name]()
      ours[name].seconds += d.seconds
      ours[name].cpuSeconds += d.cpuSeconds ?? 0
      ours[name].outBytes = d.outBytes
      ours[name].peakMiB = Math.max(ours[name].peakMiB, d.peakMiB ?? 0)
      perRound[name].push((b.seconds / d.seconds).toFixed(2))
    }
  }
  for (const name of names) console.log(`${what} (${name}), round by round: ${perRound[name].join(', ')}`)
  base.seconds /= rounds
  for (const name of names) {
    ours[name].seconds /= rounds
    ours[name].cpuSeconds /= rounds
  }
  return { baseline: base, ...ours }
}

/**
 * Starts a served daemon for `root` under each Node, hands `body` the daemons to alternate with the baseline
 * (`run, node 20`, `served, node 20`, `run, node 24`, ...: every Node's runs against the same baseline
 * rounds), and stops them whatever happens.
 */
async function withDaemons<T>(
  root: string,
  label: string,
  compression: string,
  body: (daemons: Record<string, () => Promise<Timed>>) => Promise<T>,
): Promise<T> {
  const served: Awaited<ReturnType<typeof servedDaemon>>[] = []
  try {
    for (const [i, node] of nodes.entries()) served.push(await servedDaemon(work, root, `${label}served${i}`, compression, node))
    const daemons: Record<string, () => Promise<Timed>> = {}
    for (const [i, node] of nodes.entries()) {
      daemons[`run, ${node.label}`] = () => timeDaemon(work, root, `${label}${i}`, compression, node)
      daemons[`served, ${node.label}`] = () => served[i]!.run()
    }
    return await body(daemons)
  } finally {
    for (const daemon of served) await daemon.stop()
  }
}

/**
 * RESULTs per Node after the first: the daemon's time on the first Node over its time on this one, run and
 * served, in wall time (the target) and in CPU time (steadier when the neighbours' load varies; no target).
 */
function compareNodes(what: string, results: Record<string, Timed>): void {
  const [first, ...others] = nodes
  for (const node of others)
    for (const kind of ['run', 'served']) {
      const ours = results[`${kind}, ${node.label}`]!
      const theirs = results[`${kind}, ${first!.label}`]!
      const name = `daemon ${what}${kind === 'served' ? ' served' : ''}, ${node.label} vs ${first!.label}`
      printResult(name, theirs.seconds / ours.seconds, `${first!.label} throughput (the same job, alternating in the same rounds)`, '>= 1.0')
      printResult(`${name}, CPU`, theirs.cpuSeconds! / ours.cpuSeconds!, `${first!.label} throughput per CPU-second`)
    }
}

const work = mkdtempSync(join(tmpdir(), 'bench-daemon-'))
const nodes = nodeBinaries()
try {
  const p = pools()
  const half = Math.ceil((scale * 1024 * MiB) / 2)
  const large = cachedTree(`bench-daemon-tree-${scale}gib`, (dir) => makeHalf(join(dir, 'a'), half, p) + makeHalf(join(dir, 'b'), half, p))
  const tiny = cachedTree(`bench-daemon-tiny-${tinyCount}`, (dir) => makeTiny(dir, tinyCount, p))
  const tree = large.dir
  const bytes = large.bytes
  if (process.env.BENCH_DAEMON_PREPARE) {
    rmSync(work, { recursive: true, force: true })
    process.exit(0)
  }
  const cores = spawnSync('nproc', { encoding: 'utf8' }).stdout.trim()
  console.log(
    `tree: ${(bytes / MiB).toFixed(0)} MiB in ${tree}; tiny tree: ${tinyCount} files, ${(tiny.bytes / MiB).toFixed(0)} MiB; ${cores} cores; times are means of ${rounds} alternating rounds; daemon on ${nodes.map((n) => `${n.label} (${n.version})`).join(' and ')}`,
  )

  const out = join(work, 'baseline.out')
  const line = (what: string, r: Timed, size = bytes) =>
    console.log(
      `${what}: ${r.seconds.toFixed(1)} s (${(size / MiB / r.seconds).toFixed(1)} MiB/s), ${(r.outBytes / MiB).toFixed(0)} MiB out${r.peakMiB ? `, peak RSS ${r.peakMiB.toFixed(1)} MiB` : ''}${r.cpuSeconds ? `, ${r.cpuSeconds.toFixed(1)} CPU-s` : ''}`,
    )
  const peaks: number[] = []
  if (runs('gz') || runs('zst')) warm(tree)
  if (runs('gz')) {
    const tarGz = timeShell(`tar -czf ${q(out)} -C ${q(tree)} .`, out)
    const gzRuns = await withDaemons(tree, 'gz', 'tar.gz', (daemons) =>
      alternate('daemon tar.gz vs tar | pigz -6', () => timeShell(`tar -cf - -C ${q(tree)} . | pigz -6 > ${q(out)}`, out), daemons),
    )
    const pigz = gzRuns.baseline
    line('tar -czf', tarGz)
    line('tar -cf - | pigz -6', pigz)
    for (const [i, node] of nodes.entries()) {
      const gz = gzRuns[`run, ${node.label}`]!
      const gzServed = gzRuns[`served, ${node.label}`]!
      const gzHalf = await timeDaemon(work, join(tree, 'a'), `gzhalf${i}`, 'tar.gz', node)
      peaks.push(gz.peakMiB, gzServed.peakMiB)
      line(`daemon tar.gz, ${node.label}`, gz)
      line(`daemon tar.gz, ${node.label}, served (run through the API)`, gzServed)
      line(`daemon tar.gz, ${node.label}, half tree`, gzHalf, bytes / 2)
      printResult(`daemon tar.gz vs tar -czf, ${node.label}`, tarGz.seconds / gz.seconds, 'tar -czf throughput', '>= 0.9')
      printResult(`daemon tar.gz vs tar | pigz -6, ${node.label}`, pigz.seconds / gz.seconds, `pigz pipeline throughput (${cores} cores)`, '>= 1.0')
      printResult(
        `served daemon tar.gz vs tar | pigz -6, ${node.label}`,
        pigz.seconds / gzServed.seconds,
        'pigz pipeline throughput, a running daemon (no process start)',
      )
      printResult(
        `daemon peak RSS, full vs half tree, ${node.label}`,
        gz.peakMiB / gzHalf.peakMiB,
        `peak RSS growth for 2x the data (${gzHalf.peakMiB.toFixed(0)} -> ${gz.peakMiB.toFixed(0)} MiB)`,
        '~1.0',
      )
    }
    compareNodes('tar.gz', gzRuns)
    timeShell(`tar -cf ${q(out)}.tar -C ${q(tree)} .`, `${out}.tar`, false)
    const pigzAlone = timeShell(`pigz -6 < ${q(out)}.tar > ${q(out)}`, out)
    line('pigz -6 alone, on the tar already written', pigzAlone)
    printResult(
      'ceiling: pigz -6 alone vs tar | pigz -6',
      pigz.seconds / pigzAlone.seconds,
      'pigz pipeline throughput, what zlib -6 on every byte reaches here with no tar to make (no target; the daemon stores random-looking stretches instead)',
    )
  }
  if (runs('zst')) {
    const zstRuns = await withDaemons(tree, 'zst', 'tar.zst', (daemons) =>
      alternate('daemon tar.zst vs tar | zstd -3 -T0', () => timeShell(`tar -cf - -C ${q(tree)} . | zstd -q -3 -T0 > ${q(out)}`, out), daemons),
    )
    const zstd = zstRuns.baseline
    line('tar -cf - | zstd -3 -T0', zstd)
    for (const node of nodes) {
      const zst = zstRuns[`run, ${node.label}`]!
      const zstServed = zstRuns[`served, ${node.label}`]!
      peaks.push(zst.peakMiB, zstServed.peakMiB)
      line(`daemon tar.zst, ${node.label}`, zst)
      line(`daemon tar.zst, ${node.label}, served (run through the API)`, zstServed)
      printResult(`daemon tar.zst vs tar | zstd -3 -T0, ${node.label}`, zstd.seconds / zst.seconds, `zstd pipeline throughput (${cores} cores)`, '>= 1.0')
      printResult(
        `served daemon tar.zst vs tar | zstd -3 -T0, ${node.label}`,
        zstd.seconds / zstServed.seconds,
        'zstd pipeline throughput, a running daemon (no process start)',
      )
    }
    compareNodes('tar.zst', zstRuns)
    if (!existsSync(`${out}.tar`)) timeShell(`tar -cf ${q(out)}.tar -C ${q(tree)} .`, `${out}.tar`, false)
    const zstdAlone = timeShell(`zstd -q -3 -T0 < ${q(out)}.tar > ${q(out)}`, out)
    line('zstd -3 -T0 alone, on the tar already written', zstdAlone)
    printResult(
      'ceiling: zstd -3 -T0 alone vs tar | zstd -3 -T0',
      zstd.seconds / zstdAlone.seconds,
      'zstd pipeline throughput, the most any tar.zst compressing with zstd reaches here (no target)',
    )
  }
  rmSync(`${out}.tar`, { force: true })
  if (runs('tiny')) {
    warm(tiny.dir)
    const tinyRuns = await withDaemons(tiny.dir, 'tiny', 'tar', (daemons) =>
      alternate('daemon tar vs tar -cf (tiny files)', () => timeShell(`tar -cf ${q(out)} -C ${q(tiny.dir)} .`, out), daemons),
    )
    const tarTiny = tinyRuns.baseline
    line('tar -cf (tiny files)', tarTiny, tiny.bytes)
    for (const [i, node] of nodes.entries()) {
      const plainTiny = tinyRuns[`run, ${node.label}`]!
      const servedTiny = tinyRuns[`served, ${node.label}`]!
      // The path before the tar worker (walk and tar in the main thread), for the worker's gain in the same run.
      const batchesTiny = await timeDaemon(work, tiny.dir, `tinybatches${i}`, 'tar', node, { BACKUP_DAEMON_TAR_WORKER: '0' })
      peaks.push(plainTiny.peakMiB, servedTiny.peakMiB)
      line(`daemon tar (tiny files), ${node.label}`, plainTiny, tiny.bytes)
      line(`daemon tar (tiny files), ${node.label}, served (run through the API)`, servedTiny, tiny.bytes)
      line(`daemon tar (tiny files, no tar worker), ${node.label}`, batchesTiny, tiny.bytes)
      const gain = batchesTiny.seconds / plainTiny.seconds
      printResult(`tar worker vs main-thread tar, ${tinyCount / 1000}k tiny files, ${node.label}`, gain, 'main-thread tar throughput', '> 1.0')
      printResult(`daemon tar vs tar -cf, ${tinyCount / 1000}k tiny files, ${node.label}`, tarTiny.seconds / plainTiny.seconds, 'tar -cf throughput', '>= 1.0')
      printResult(
        `served daemon tar vs tar -cf, ${tinyCount / 1000}k tiny files, ${node.label}`,
        tarTiny.seconds / servedTiny.seconds,
        'tar -cf throughput, a running daemon (no process start)',
      )
    }
    compareNodes(`tar (${tinyCount / 1000}k tiny files)`, tinyRuns)
    for (const threads of [1, 2]) {
      const seconds = await bareWalk(tiny.dir, threads)
      console.log(`node open+fstat+read+close only, ${threads} thread${threads > 1 ? 's' : ''} (tiny files): ${seconds.toFixed(1)} s`)
      printResult(
        `ceiling: bare node file calls on ${threads} thread${threads > 1 ? 's' : ''} vs tar -cf`,
        tarTiny.seconds / seconds,
        'tar -cf throughput, the most a Node walk on as many threads reaches here (no target)',
      )
    }
  }
  const peak = Math.max(...peaks)
  printResult('daemon peak RSS vs 150 MiB', peak / 150, `of 150 MiB (${peak.toFixed(0)} MiB peak over all runs)`, '< 1')
} finally {
  rmSync(work, { recursive: true, force: true })
}
