/**
 * @module bench/daemon-throughput
 * Backs up a generated tree (>= 1 GiB: many small files and a few large ones, random bytes mixed with
 * compressible text) with `tar -czf` and with the daemon's `backup-daemon run` (tar.gz into local
 * storage, a real child process), in the same run. Prints the throughput ratio daemon/tar, the
 * daemon's peak RSS (VmHWM), and the peak RSS for a tree half as big, to show it does not grow.
 * Targets (issue 2): ratio >= 0.9, peak RSS < 150 MiB and flat.
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { peakRssMiB, printResult } from './support/measure.js'

const MiB = 1 << 20
const bin = fileURLToPath(new URL('../backup-daemon/bin/backup-daemon.js', import.meta.url))
const scale = Number(process.env.BENCH_DAEMON_GIB ?? 1)

const words = 'the of and to in backup daemon snapshot archive stream storage media payload schedule retention manifest part chunk compress gzip tar local source job run cancel log line status config server host'.split(' ')

/** A pool of text (compresses about 4:1) and one of random bytes; files are slices of both. */
function pools(): { text: Buffer; random: Buffer } {
  const parts: string[] = []
  let size = 0
  while (size < 16 * MiB) {
    const line = Array.from({ length: 8 + Math.floor(Math.random() * 10) }, () => words[Math.floor(Math.random() * words.length)]).join(' ') + ` ${Math.floor(Math.random() * 1e9)}\n`
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

function timeTar(root: string, out: string): number {
  const start = process.hrtime.bigint()
  const result = spawnSync('tar', ['-czf', out, '-C', root, '.'], { stdio: 'inherit' })
  if (result.status !== 0) throw new Error('tar -czf failed')
  return Number(process.hrtime.bigint() - start) / 1e9
}

/** Runs `backup-daemon run bench` on `root`; returns seconds and the child's peak RSS. */
async function timeDaemon(work: string, root: string, label: string): Promise<{ seconds: number; peakMiB: number; outBytes: number }> {
  const config = join(work, `${label}.yaml`)
  writeFileSync(
    config,
    `dataDir: ./data-${label}\njobs:\n  - name: bench\n    compression: tar.gz\n    sources: [{ type: local, name: tree, path: ${JSON.stringify(root)} }]\n    storages: [{ type: local, name: out, path: ./out-${label} }]\n`,
  )
  const start = process.hrtime.bigint()
  const child = spawn(process.execPath, [bin, 'run', 'bench', '--config', config], { stdio: ['ignore', 'pipe', 'inherit'] })
  let peakMiB = 0
  let log = ''
  child.stdout.on('data', (chunk) => (log += chunk))
  // VmHWM is the peak so far; sample it until the process is gone.
  const timer = setInterval(() => {
    try {
      const peak = peakRssMiB(child.pid!)
      // An exited (zombie) process has no VmHWM line any more.
      if (Number.isFinite(peak)) peakMiB = Math.max(peakMiB, peak)
    } catch {}
  }, 50)
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  clearInterval(timer)
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (code !== 0) throw new Error(`backup-daemon run failed (${code}):\n${log}`)
  const outDir = join(work, `out-${label}`, 'bench')
  const outBytes = readdirSync(outDir)
    .filter((f) => f.endsWith('.tar.gz'))
    .reduce((sum, f) => sum + statSync(join(outDir, f)).size, 0)
  rmSync(join(work, `out-${label}`), { recursive: true, force: true })
  return { seconds, peakMiB, outBytes }
}

const work = mkdtempSync(join(tmpdir(), 'bench-daemon-'))
try {
  const tree = join(work, 'tree')
  const p = pools()
  const half = Math.ceil((scale * 1024 * MiB) / 2)
  const bytes = makeHalf(join(tree, 'a'), half, p) + makeHalf(join(tree, 'b'), half, p)
  console.log(`tree: ${(bytes / MiB).toFixed(0)} MiB in ${tree}`)

  const tarSeconds = timeTar(tree, join(work, 'tar.tar.gz'))
  const tarBytes = statSync(join(work, 'tar.tar.gz')).size
  rmSync(join(work, 'tar.tar.gz'))
  const full = await timeDaemon(work, tree, 'full')
  const halfRun = await timeDaemon(work, join(tree, 'a'), 'half')
  const mbps = (s: number) => (bytes / MiB / s).toFixed(1)
  console.log(`tar -czf: ${tarSeconds.toFixed(1)} s (${mbps(tarSeconds)} MiB/s), ${(tarBytes / MiB).toFixed(0)} MiB out`)
  console.log(`daemon run: ${full.seconds.toFixed(1)} s (${mbps(full.seconds)} MiB/s), ${(full.outBytes / MiB).toFixed(0)} MiB out, peak RSS ${full.peakMiB.toFixed(1)} MiB`)
  console.log(`daemon run, half tree: ${halfRun.seconds.toFixed(1)} s, peak RSS ${halfRun.peakMiB.toFixed(1)} MiB`)
  printResult('daemon throughput vs tar -czf', tarSeconds / full.seconds, 'tar -czf throughput', '>= 0.9')
  printResult('daemon peak RSS vs 150 MiB', full.peakMiB / 150, `of 150 MiB (${full.peakMiB.toFixed(0)} MiB peak)`, '< 1')
  printResult('daemon peak RSS, full vs half tree', full.peakMiB / halfRun.peakMiB, `peak RSS growth for 2x the data (${halfRun.peakMiB.toFixed(0)} -> ${full.peakMiB.toFixed(0)} MiB)`, '~1.0')
} finally {
  rmSync(work, { recursive: true, force: true })
}
