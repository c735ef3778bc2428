/**
 * @module bench/daemon-restore-files
 * A restore of many small files (issue 42, "scale of the tree"): a tree of `BENCH_RESTORE_FILES` files
 * (default 100,000; `1000000` for the million, about 25 minutes here) of 0 to 512 bytes in
 * folders of 1000, backed up once by the daemon into a local `tar.zst` storage, then restored with
 * `backup-daemon restore bench <snapshot> --to DIR` (a real child process, as an operator types it), and
 * drilled (`backup-daemon drill bench`), each against `zstd -dc <archive> | tar -x` of the very same
 * archive, alternating over `BENCH_RESTORE_ROUNDS` rounds (default 2) on a shared, noisy machine. The
 * ratio is the baseline's time over the daemon's; beside it the daemon's peak RSS (target < 200 MiB) and
 * its CPU seconds. Creating files is what costs here (the kernel's part is the same for both); what the
 * daemon adds is per entry: the checks that keep every entry inside the target, and its own process.
 * Targets: restore and drill >= 0.8x the pipeline.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cpuSeconds, peakRssMiB, printResult } from './support/measure.js'

const bin = fileURLToPath(new URL('../backup-daemon/bin/backup-daemon.js', import.meta.url))
const count = Number(process.env.BENCH_RESTORE_FILES ?? 100_000)
const rounds = Math.max(1, Number(process.env.BENCH_RESTORE_ROUNDS ?? 2))

/** The tree, generated once under the OS temp folder and reused (a marker says it is whole). */
function smallFileTree(): string {
  const dir = join(tmpdir(), `bench-restore-files-${count}`)
  const marker = join(dir, '.bench-complete')
  if (existsSync(marker)) return join(dir, 'tree')
  rmSync(dir, { recursive: true, force: true })
  const text = Buffer.from('restore drill snapshot archive entry folder file name byte '.repeat(20))
  for (let i = 0; i < count; i++) {
    const folder = join(dir, 'tree', `d${Math.floor(i / 1000)}`)
    if (i % 1000 === 0) mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `f${i}.txt`), text.subarray(i % 97, (i % 97) + (i % 513)))
  }
  writeFileSync(marker, String(count))
  return join(dir, 'tree')
}

interface Timed {
  seconds: number
  peakMiB?: number
  cpu?: number
}

/** Runs `node bin …` (or a shell pipeline) and times it; a daemon child's peak RSS and CPU are sampled every 50 ms. */
async function timed(command: string, args: string[], cwd: string, sampled: boolean): Promise<Timed> {
  const start = process.hrtime.bigint()
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  let peak = 0
  let cpu = 0
  const sample = () => {
    try {
      const rss = peakRssMiB(child.pid!)
      if (Number.isFinite(rss)) {
        peak = Math.max(peak, rss)
        cpu = cpuSeconds(child.pid!)
      }
    } catch {}
  }
  const timer = sampled ? setInterval(sample, 50) : undefined
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  clearInterval(timer)
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${code}):\n${output.slice(-3000)}`)
  return sampled ? { cpu, peakMiB: peak, seconds } : { seconds }
}

const tree = smallFileTree()
const work = mkdtempSync(join(tmpdir(), 'bench-restore-'))
const config = join(work, 'bench.yaml')
writeFileSync(
  config,
  `dataDir: ./data\njobs:\n  - name: bench\n    compression: zstd\n    sources: [{ type: local, name: tree, path: ${JSON.stringify(tree)} }]\n    storages: [{ type: local, name: out, path: ./out }]\n`,
)
try {
  const backup = await timed(process.execPath, [bin, 'run', 'bench', '--config', config, '--quiet'], work, true)
  console.log(`backup of ${count} files: ${backup.seconds.toFixed(1)} s, peak RSS ${backup.peakMiB!.toFixed(0)} MiB`)
  const outDir = join(work, 'out', 'bench')
  const archive = readdirSync(outDir).find((name) => name.endsWith('.tar.zst'))
  if (!archive) throw new Error(`no .tar.zst in ${outDir}: ${readdirSync(outDir).join(', ')}`)
  const snapshot = archive.replace(/\.tar\.zst$/, '')
  // A new target folder for every run, all removed at the end: removing 100,000 files leaves the file system
  // work (journal, freed inodes) that the next run would pay for, which one run in two did.
  let made = 0
  const fresh = () => {
    const target = join(work, `target-${++made}`)
    mkdirSync(target)
    spawnSync('sync')
    return target
  }
  const runs: Record<'pipeline' | 'restore' | 'drill', Timed[]> = { drill: [], pipeline: [], restore: [] }
  for (let round = 0; round < rounds; round++) {
    runs.pipeline.push(await timed('sh', ['-c', `zstd -dc '${join(outDir, archive)}' | tar -xf - -C '${fresh()}'`], work, false))
    runs.restore.push(await timed(process.execPath, [bin, 'restore', 'bench', snapshot, '--to', fresh(), '--config', config, '--quiet'], work, true))
    spawnSync('sync')
    runs.drill.push(await timed(process.execPath, [bin, 'drill', 'bench', '--config', config, '--quiet'], work, true))
    console.log(
      `round ${round + 1}: pipeline ${runs.pipeline.at(-1)!.seconds.toFixed(1)} s, restore ${runs.restore.at(-1)!.seconds.toFixed(1)} s, drill ${runs.drill.at(-1)!.seconds.toFixed(1)} s`,
    )
  }
  const total = (list: Timed[]) => list.reduce((sum, run) => sum + run.seconds, 0)
  const peak = (list: Timed[]) => Math.max(...list.map((run) => run.peakMiB ?? 0))
  const cpu = (list: Timed[]) => list.reduce((sum, run) => sum + (run.cpu ?? 0), 0) / list.length
  for (const kind of ['restore', 'drill'] as const) {
    printResult(
      `${kind} of ${count} small files vs zstd -dc | tar -x`,
      total(runs.pipeline) / total(runs[kind]),
      `(${(total(runs[kind]) / rounds).toFixed(1)} s vs ${(total(runs.pipeline) / rounds).toFixed(1)} s; peak RSS ${peak(runs[kind]).toFixed(0)} MiB, ${cpu(runs[kind]).toFixed(1)} CPU s)`,
      '>= 0.8x, peak RSS < 200 MiB',
    )
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
