/**
 * @module bench/daemon-restic-restore
 * A restore from restic at restic's speed (issue 42): a media-like tree (`BENCH_RESTIC_RESTORE_GIB` GiB,
 * default 1, the is 10: files of 5 MiB of random bytes, which nothing compresses) backed up once by
 * the daemon into a local restic repository, then restored over `BENCH_RESTIC_RESTORE_ROUNDS` rounds
 * (default 2), each round alternating:
 * - `restic restore <the source's snapshot> --target DIR`: plain restic, the baseline (target: the daemon >= 0.9x);
 * - `backup-daemon restore bench <snapshot> --to DIR` (a real child process, as an operator types it);
 * (The API's restore runs the same task, `tasks/restoreTask.ts`, in the served daemon.)
 * - `restic dump --archive tar <snapshot> <path> | tar -x`: what the daemon's restore cost before it handed
 *   folder sources to restic (a dump re-packed and unpacked; no target, for comparison).
 * The backup is timed too, as a first run against `tar -cf - | zstd -3 -T0` of the same tree into a file (the
 * original service's pipeline; target >= 0.8x), with the storage's `compression` from
 * `BENCH_RESTIC_RESTORE_COMPRESSION` (default `off`, what the README advises for media; `auto` is restic's own).
 * Beside each daemon row its peak RSS. Each target folder is new and removed before the next; `sync` between runs.
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { peakRssMiB, printResult } from './support/measure.js'

const MiB = 1 << 20
const bin = fileURLToPath(new URL('../backup-daemon/bin/backup-daemon.js', import.meta.url))
const gib = Number(process.env.BENCH_RESTIC_RESTORE_GIB ?? 1)
const rounds = Math.max(1, Number(process.env.BENCH_RESTIC_RESTORE_ROUNDS ?? 2))
const password = 'bench restic restore password'
const compression = process.env.BENCH_RESTIC_RESTORE_COMPRESSION ?? 'off'
const q = (path: string) => `'${path.replaceAll("'", "'\\''")}'`

/** The tree, generated once under the OS temp folder and reused (a marker says it is whole). */
function mediaTree(): string {
  const dir = join(tmpdir(), `bench-restic-restore-${gib}gib`)
  const marker = join(dir, '.bench-complete')
  if (existsSync(marker)) return join(dir, 'tree')
  rmSync(dir, { recursive: true, force: true })
  const files = Math.round((gib * 1024) / 5)
  for (let i = 0; i < files; i++) {
    const folder = join(dir, 'tree', `album-${Math.floor(i / 64)}`)
    if (i % 64 === 0) mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `clip-${i}.mp4`), randomBytes(5 * MiB))
  }
  writeFileSync(marker, String(files))
  return join(dir, 'tree')
}

interface Timed {
  seconds: number
  peakMiB?: number
}

/** Runs a command to its end and times it; a daemon child's peak RSS is sampled every 50 ms. */
async function timed(command: string, args: string[], env: NodeJS.ProcessEnv, sampled: boolean): Promise<Timed> {
  const start = process.hrtime.bigint()
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output = (output + chunk).slice(-4000)))
  child.stderr.on('data', (chunk) => (output = (output + chunk).slice(-4000)))
  let peak = 0
  const timer = sampled ? setInterval(() => (peak = Math.max(peak, peakRssMiB(child.pid!) || 0)), 50) : undefined
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  clearInterval(timer)
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${code}):\n${output}`)
  return sampled ? { seconds, peakMiB: peak } : { seconds }
}

const tree = mediaTree()
const work = mkdtempSync(join(tmpdir(), 'bench-restic-restore-'))
const repository = join(work, 'repo')
const resticEnv = { ...process.env, RESTIC_REPOSITORY: repository, RESTIC_PASSWORD: password }
const config = join(work, 'bench.yaml')
writeFileSync(
  config,
  [
    'dataDir: ./data',
    'jobs:',
    '  - name: bench',
    `    sources: [{ type: local, name: media, path: ${JSON.stringify(tree)} }]`,
    `    storages: [{ type: restic, name: repo, repository: ${JSON.stringify(repository)}, password: ${JSON.stringify(password)}, compression: ${compression} }]`,
    '',
  ].join('\n'),
)
let made = 0
/** A new target folder; the one before is removed first (a 10 GiB tree restored six times would not fit). */
const fresh = () => {
  if (made) rmSync(join(work, `target-${made}`), { recursive: true, force: true })
  const target = join(work, `target-${++made}`)
  mkdirSync(target)
  spawnSync('sync')
  return target
}
try {
  spawnSync('sh', ['-c', `tar -cf - -C ${q(tree)} . > /dev/null`]) // the tree read once: both start with it in the page cache
  const pipeline = await timed('sh', ['-c', `tar -cf - -C ${q(tree)} . | zstd -3 -T0 -q > ${q(join(work, 'pipeline.tar.zst'))}`], process.env, false)
  rmSync(join(work, 'pipeline.tar.zst'))
  const backup = await timed(process.execPath, [bin, 'run', 'bench', '--config', config, '--quiet'], process.env, true)
  printResult(
    `first run of ${gib} GiB into restic (compression ${compression}) vs tar | zstd -3 -T0`,
    pipeline.seconds / backup.seconds,
    `(${backup.seconds.toFixed(1)} s vs ${pipeline.seconds.toFixed(1)} s; peak RSS ${backup.peakMiB!.toFixed(0)} MiB)`,
    '>= 0.8x',
  )
  const listed = JSON.parse(spawnSync('restic', ['snapshots', '--json'], { env: resticEnv, encoding: 'utf8' }).stdout) as { id: string; paths: string[] }[]
  const source = listed.find((snapshot) => snapshot.paths[0] === tree)
  if (!source) throw new Error(`no snapshot of ${tree} in ${JSON.stringify(listed)}`)
  const listing = spawnSync(process.execPath, [bin, 'snapshots', 'bench', '--config', config, '--json'], { encoding: 'utf8' })
  // One JSON object per line, newest first.
  const name = listing.status === 0 ? (JSON.parse(listing.stdout.split('\n')[0]!) as { name?: string }).name : undefined
  if (!name) throw new Error(`the daemon lists no snapshot: ${listing.stdout}${listing.stderr}`)
  const runs: Record<'restic' | 'cli' | 'dump', Timed[]> = { restic: [], cli: [], dump: [] }
  for (let round = 0; round < rounds; round++) {
    runs.restic.push(await timed('restic', ['restore', source.id, '--target', fresh()], resticEnv, false))
    runs.cli.push(await timed(process.execPath, [bin, 'restore', 'bench', name, '--to', fresh(), '--config', config, '--quiet'], process.env, true))
    const dumpTo = fresh()
    runs.dump.push(await timed('sh', ['-c', `restic dump --archive tar ${source.id} ${q(tree)} | tar -xf - -C ${q(dumpTo)}`], resticEnv, false))
    const last = (kind: keyof typeof runs) => runs[kind].at(-1)!.seconds.toFixed(1)
    console.log(`round ${round + 1}: restic restore ${last('restic')} s, CLI ${last('cli')} s, dump | tar -x ${last('dump')} s`)
  }
  const total = (list: Timed[]) => list.reduce((sum, run) => sum + run.seconds, 0)
  const peak = (list: Timed[]) => Math.max(...list.map((run) => run.peakMiB ?? 0))
  const each = (list: Timed[]) => `${(total(list) / rounds).toFixed(1)} s`
  printResult(
    `restore of ${gib} GiB from restic, CLI vs restic restore`,
    total(runs.restic) / total(runs.cli),
    `(${each(runs.cli)} vs ${each(runs.restic)}; peak RSS ${peak(runs.cli).toFixed(0)} MiB)`,
    '>= 0.9x',
  )
  printResult(`restic dump | tar -x (the old path's floor) vs restic restore`, total(runs.restic) / total(runs.dump), `(${each(runs.dump)})`, 'none')
} finally {
  rmSync(work, { recursive: true, force: true })
}
