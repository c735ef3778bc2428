/**
 * @module test/restoreMatrix/support/plainTool
 * A restore without the daemon, as the README tells an operator to do it: the downloaded archive through
 * `age -d` or `openssl enc -d`, `zstd -d` or `xz`, and GNU `tar -x`; a restic repository through plain
 * `restic restore` (a folder source) and `restic dump … | tar -x` (every other source). Either way the result
 * is `<out>/<source name>/…`, the layout every other path restores, so the same comparisons apply.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { agePassphrase, archiveFormat, opensslPassword, resticPassword, type StorageKind } from './matrixConfig.js'

const run = promisify(execFile)
const sh = (script: string, args: string[], env: Record<string, string> = {}) =>
  run('sh', ['-c', script, 'sh', ...args], { env: { ...process.env, ...env }, maxBuffer: 256 << 20 })

/** Unpacks the archive `file` (as downloaded) of a `kind` job into `out` with the plain tools. */
export async function unpackDownload(kind: StorageKind, file: string, out: string): Promise<void> {
  mkdirSync(out, { recursive: true })
  const { compression, encryption } = archiveFormat[kind]
  let archive = file
  if (encryption?.type === 'age') {
    // age asks for a passphrase on the terminal only: `script` gives it one, fed from stdin.
    archive = `${file}.decrypted`
    await sh(`printf '%s\\n' "$P" | script -qec "age -d -o '$2' '$1'" /dev/null > /dev/null`, [file, archive], { P: agePassphrase })
  } else if (encryption?.type === 'openssl') {
    archive = `${file}.decrypted`
    await sh('openssl enc -d -aes-256-cbc -pbkdf2 -in "$1" -out "$2" -pass env:P', [file, archive], { P: opensslPassword })
  }
  const decompress: Record<string, string> = { 'tar.gz': 'gzip -dc', 'tar.zst': 'zstd -dc', 'tar.xz': 'xz -dc', tar: 'cat' }
  await sh(`${decompress[compression ?? 'tar']} "$1" | tar -xf - -C "$2"`, [archive, out])
}

interface ResticSnapshot {
  short_id: string
  id: string
  time: string
  paths: string[]
  tags?: string[]
}

/**
 * `step` again while restic says the repository is locked (a daemon's `check` holds it exclusively): restic
 * 0.14 fails at once there (no `--retry-lock` before 0.16), and an operator would try again.
 */
async function whileLocked<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step()
    } catch (err) {
      if (attempt >= 120 || !/locked/.test((err as { stderr?: string }).stderr ?? '')) throw err
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
  }
}

/** The newest committed run of `job` in the restic repository, put back with plain restic into `out`. */
export async function resticRestore(repository: string, job: string, out: string): Promise<void> {
  const env = { RESTIC_PASSWORD: resticPassword, RESTIC_REPOSITORY: repository }
  const restic = (args: string[]) => whileLocked(() => run('restic', args, { env: { ...process.env, ...env }, maxBuffer: 256 << 20 }))
  const snapshots = JSON.parse((await restic(['snapshots', '--json', '--tag', `job=${job}`])).stdout) as ResticSnapshot[]
  const tag = (s: ResticSnapshot, key: string) => s.tags?.find((t) => t.startsWith(`${key}=`))?.slice(key.length + 1)
  const commits = snapshots.filter((s) => s.tags?.includes('commit')).sort((a, b) => a.time.localeCompare(b.time))
  const newest = commits.at(-1)
  if (!newest) throw new Error(`restic: no committed run of ${job} in ${repository}`)
  const run_ = tag(newest, 'run')
  // Every snapshot of the run with a source (the commit is on the last one; an old-layout commit has no source).
  const parts = snapshots.filter((s) => tag(s, 'run') === run_ && tag(s, 'source') !== undefined)
  mkdirSync(out, { recursive: true })
  for (const part of parts) {
    const source = tag(part, 'source')!
    if (part.tags?.includes('dump')) {
      // The dump to a file first: in a pipe, a dump refused for a lock would show as tar's complaint.
      const dump = join(out, `.restic-${source}.tar`)
      await whileLocked(() => sh('restic dump "$1" "$2" > "$3"', [part.id, part.paths[0]!, dump], env))
      await sh('tar -xf "$1" -C "$2" && rm "$1"', [dump, out])
    } else {
      // A folder goes back below the target at its own absolute path.
      const scratch = join(out, `.restic-${source}`)
      await restic(['restore', part.id, '--target', scratch])
      renameSync(join(scratch, part.paths[0]!), join(out, source))
    }
  }
  writeFileSync(join(out, '.restic-run'), `${run_}\n`)
}
