/**
 * @module repository/restic/resticRestore
 * A run's files restored by restic itself: each folder source with `restic restore` (parallel, writing
 * every file where it goes), each dump source through the tar path, into a folder the caller holds
 * (`tasks/restoreFiles`' private temporary folder, moved into place once everything is there). It was the
 * slow part of a restore from restic: `restic dump --archive tar`, re-packed by us and unpacked again, took
 * five times as long as plain `restic restore` of the same snapshot (issue 42).
 *
 * It stays a restore of untrusted input (issue 37):
 * - only a tree whose listing passes `planTreeRestore` goes to restic (anything else takes the tar path);
 * - restic writes into a folder of its own inside the held folder, reached through our descriptor, and its
 *   source's root is then moved out of it by name;
 * - as root, restic runs without the capabilities a crafted tree could use (`setfcap` for file capabilities
 *   in extended attributes, `mknod`, `sys_admin` for `trusted.*` attributes, `linux_immutable`), and what it
 *   gave to other owners is given back to the daemon's user, as the tar path leaves it.
 */
import { chmod, lchown, mkdir, readdir, readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { extractTo, restoreFolders, type ExtractResult } from '../../restore/extractTo.js'
import { removeTree } from '../../restore/removeTree.js'
import { canDropCapabilities } from '../../sources/support/spawnOwned.js'
import { CopyReadError, type DirectRestore, type DirectRestoreHooks, type ReadOptions } from '../types.js'
import type { ResticTarget } from './resticProcess.js'
import type { RunSource } from './resticRuns.js'
import { resticLocked } from './resticSession.js'
import { openRunTar } from './resticTar.js'
import { planTreeRestore, type NotForRestic, type TreeRestorePlan } from './restorePlan.js'

/** What restic must not be able to do while it restores as root. */
const droppedCapabilities = ['setfcap', 'mknod', 'sys_admin', 'linux_immutable'] as const

const asRoot = () => process.getuid?.() === 0

/** Plans the restore of `sources` (all of a run's, or the ones asked for); `because` when it must take the tar path. */
export async function planRunRestore(target: ResticTarget, sources: readonly RunSource[], options: ReadOptions): Promise<DirectRestore | NotForRestic> {
  if (asRoot() && !canDropCapabilities()) return { because: 'setpriv (util-linux) is not installed, so restic would restore as root with every capability' }
  const plans = new Map<RunSource, TreeRestorePlan>()
  for (const source of sources) {
    if (source.form !== 'tree') continue
    const plan = await planTreeRestore(target, source, options.signal)
    if ('because' in plan) return { because: `source "${source.name}": ${plan.because}` }
    plans.set(source, plan)
  }
  return {
    by: 'restic restore (each folder source) and the tar path (each dump source)',
    async into(dir, hooks = {}) {
      const result: ExtractResult = { files: 0, directories: 0, links: 0, bytes: 0, skipped: [], setIdCleared: 0, folders: [] }
      for (const [index, source] of sources.entries()) {
        options.signal?.throwIfAborted()
        const plan = plans.get(source)
        const part = plan
          ? await restoreTree(target, source, plan, join(dir, `.restic-${index}`), options)
          : await restoreDump(target, source, dir, options, hooks)
        if (plan) {
          await rename(join(dir, `.restic-${index}`, ...rootComponents(source)), join(dir, source.name))
          await restoreFolders(
            dir,
            plan.folders.filter((folder) => folder.components.length === 1),
          )
        }
        await removeTree(join(dir, `.restic-${index}`))
        add(result, part)
      }
      return result
    },
  }
}

const rootComponents = (source: RunSource) => source.root.split('/').filter(Boolean)

function add(total: ExtractResult, part: ExtractResult): void {
  total.files += part.files
  total.directories += part.directories
  total.links += part.links
  total.bytes += part.bytes
  total.skipped.push(...part.skipped)
  total.setIdCleared += part.setIdCleared
  total.folders.push(...part.folders)
}

/** A dump source's tar (one file in its snapshot), unpacked with the tar path's checks. */
async function restoreDump(target: ResticTarget, source: RunSource, dir: string, options: ReadOptions, hooks: DirectRestoreHooks): Promise<ExtractResult> {
  const tar = openRunTar(target, [source], { ...(options.signal && { signal: options.signal }), ...(options.onBytes && { onBytes: options.onBytes }) })
  let readFailed = false
  tar.once('error', () => (readFailed = true))
  // `dir` is the caller's held folder (`/proc/self/fd/<fd>`), used as it is.
  return extractTo(tar, dir, { overwrite: false, held: dir.startsWith('/proc/self/fd/'), ...(options.signal && { signal: options.signal }), ...hooks }).catch(
    (err: Error) => {
      throw readFailed && !options.signal?.aborted ? new CopyReadError(err.message, { cause: err }) : err
    },
  )
}

/** restic's own failures to write (the target's file system) are not the copy's. */
const writeFailure = /no space left|read-only file system|permission denied|quota exceeded/i

/** `restic restore` of one folder source into `staging` (its absolute path below it), then made ready to move. */
async function restoreTree(target: ResticTarget, source: RunSource, plan: TreeRestorePlan, staging: string, options: ReadOptions): Promise<ExtractResult> {
  await mkdir(staging, { mode: 0o700 })
  const progress = writtenBytes(options.onBytes)
  try {
    // restic is another process: our `/proc/self/fd/…` is `/proc/<our pid>/fd/…` to it (the same descriptor, no path lookup).
    const forRestic = staging.replace(/^\/proc\/self\//, `/proc/${process.pid}/`)
    await resticLocked(target, ['restore', source.id, '--target', forRestic], {
      ...(options.signal && { signal: options.signal }),
      onSpawn: progress.watch,
      ...(asRoot() && { dropCapabilities: droppedCapabilities }),
    })
  } catch (err) {
    if (options.signal?.aborted || writeFailure.test((err as Error).message)) throw err
    throw new CopyReadError((err as Error).message, { cause: err })
  } finally {
    progress.stop()
  }
  // The folders down to the source's root came with the modes they had where it was backed up (`/usr` 0555 for
  // all we know): the root is moved out of them (a folder moved needs to be writable itself) and they are
  // removed. The root gets its own mode and time back once it is moved.
  let above = staging
  for (const component of rootComponents(source)) {
    above = join(above, component)
    await chmod(above, 0o700)
  }
  if (asRoot() && plan.foreignOwners > 0) await ownAll(above, 0, process.getgid?.() ?? 0)
  return { files: plan.files, directories: plan.directories, links: plan.links, bytes: plan.bytes, skipped: [], setIdCleared: 0, folders: plan.folders }
}

/** restic's writes, read from `/proc/<pid>/io` (`wchar`) every 250 ms and told as bytes (a task's progress). */
function writtenBytes(onBytes?: (bytes: number) => void) {
  let timer: NodeJS.Timeout | undefined
  let told = 0
  return {
    watch(pid: number) {
      if (!onBytes) return
      // A restic started again (the repository was locked) counts from zero: added to what was told before it.
      clearInterval(timer)
      const before = told
      timer = setInterval(() => {
        readFile(`/proc/${pid}/io`, 'utf8').then(
          (text) => {
            const wchar = /^wchar:\s*(\d+)/m.exec(text)?.[1]
            const written = wchar === undefined ? told : before + Number(wchar)
            if (written > told) onBytes(written - told)
            told = Math.max(told, written)
          },
          () => {},
        )
      }, 250)
    },
    stop: () => clearInterval(timer),
  }
}

/** Gives `path` and everything below it to `uid:gid` (links themselves, never what they point at). */
async function ownAll(path: string, uid: number, gid: number): Promise<void> {
  await lchown(path, uid, gid)
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name)
    if (entry.isDirectory()) await ownAll(child, uid, gid)
    else await lchown(child, uid, gid)
  }
}
