/**
 * @module tasks/restoreFiles
 * Restores a snapshot's files into a folder so that a failure or a cancel leaves the folder as it was:
 * the archive is unpacked (with `extractTo`'s checks of every entry) into a temporary folder next to the
 * target (`.<name>.restore-<random>` in the same parent, so the final moves are renames on one file
 * system), then every restored entry is checked against what the target holds (an existing file is a
 * conflict unless `overwrite`; a file where a folder is, a folder where a file is, or a link on the way
 * always are), and only then moved into place. The temporary folder is removed whatever happens.
 *
 * Everything is reached through descriptors (`tasks/heldFolder`): the parent held since the target was
 * checked, the temporary folder, and each target folder the merge goes into (opened without following
 * links). Before the final moves the target's path must still lead to the held parent: a folder swapped
 * for a link during the restore fails it, and nothing is written outside.
 */
import { randomBytes } from 'node:crypto'
import { chmod, lstat, mkdir, rename } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { Readable } from 'node:stream'
import { escapeName } from '../logs/escapeControl.js'
import { extractTo, restoreFolders, type ExtractResult } from '../restore/extractTo.js'
import { removeTree } from '../restore/removeTree.js'
import { fsName } from '../tar/byteNames.js'
import { TarFormatError } from '../tar/forEachTarEntry.js'
import { holdBelow, holdChild, listFolder, MergeError, moveInto, stillLeadsTo } from './heldFolder.js'
import { CopyReadError, type DirectRestore } from '../repository/types.js'
import type { RestoreFolder } from './resolveRestoreFolder.js'
import type { RestoreJournalHandle } from './restoreJournal.js'

/** A restore target: the API's (held since its check) or the CLI's (held from here on). */
export type RestoreInto = Pick<RestoreFolder, 'path' | 'parent' | 'exists'> & Partial<Pick<RestoreFolder, 'held' | 'unchanged'>>

export interface RestoreFilesOptions {
  overwrite: boolean
  signal: AbortSignal
  onEntry?: (name: string) => void
  /** Told when unpacking begins and when the merge begins, so a killed restore is put right at the next start. */
  journal?: Pick<RestoreJournalHandle, 'extracting' | 'merging'>
  /** A read error worded for the snapshot (`StoredSnapshot.explainReadError`). @default the error as it is */
  explain?(err: Error): Error
}

const lstatOrNone = (path: string) => lstat(fsName(path)).catch(() => undefined)

/**
 * The snapshot's bytes failed (a read error, a part whose sha256 differs, an archive that is not a valid
 * tar) before anything was moved: the target is as it was, and another copy may restore.
 */
export class UnreadableCopyError extends Error {
  override readonly name = 'UnreadableCopyError'
}

/** Paths (relative) of the restored tree that clash with the target. */
async function conflicts(from: string, to: string, overwrite: boolean, prefix = ''): Promise<string[]> {
  const found: string[] = []
  for (const entry of await listFolder(from)) {
    const name = prefix + escapeName(entry.name)
    const there = await lstatOrNone(join(to, entry.name))
    if (!there) continue
    if (entry.isDirectory) {
      if (there.isDirectory()) found.push(...(await conflicts(join(from, entry.name), join(to, entry.name), overwrite, `${name}/`)))
      else found.push(`${name} (a ${there.isSymbolicLink() ? 'link' : 'file'} where the snapshot has a folder)`)
    } else if (there.isDirectory()) found.push(`${name} (a folder where the snapshot has a file)`)
    else if (!overwrite) found.push(`${name} (exists)`)
  }
  return found
}

/**
 * `archive`: the snapshot's tar, unpacked here; or a repository's own restore (`DirectRestore`: restic's),
 * which fills the temporary folder itself and throws `CopyReadError` when the copy's bytes fail.
 */
export async function restoreFiles(archive: Readable | DirectRestore, folder: RestoreInto, options: RestoreFilesOptions): Promise<ExtractResult> {
  const name = basename(folder.path)
  const parent = folder.held ?? holdBelow(folder.parent, [])
  const unchanged = folder.unchanged ?? (() => stillLeadsTo(folder.parent, [], parent))
  const temporaryName = `.${name}.restore-${randomBytes(6).toString('hex')}`
  const temporary = join(parent.dir, temporaryName)
  const explain = options.explain ?? ((err: Error) => err)
  /** A failure before the first move: the target is as it was. */
  let readFailed = false
  const direct = 'into' in archive ? archive : undefined
  if (!direct) (archive as Readable).once('error', () => (readFailed = true))
  const untouched = (err: Error) => {
    const message = `${explain(err).message}; nothing was restored (${folder.path} is as it was)`
    const unreadable = readFailed || err instanceof TarFormatError || err instanceof CopyReadError
    return unreadable ? new UnreadableCopyError(message, { cause: err }) : new Error(message, { cause: err })
  }
  let keepTemporary = false
  options.journal?.extracting(temporaryName)
  await mkdir(temporary, { mode: 0o700 })
  const held = holdChild(parent.dir, temporaryName)
  try {
    let result: ExtractResult
    try {
      result = direct
        ? await direct.into(held.dir)
        : await extractTo(archive as Readable, held.dir, {
            overwrite: false,
            signal: options.signal,
            held: true,
            ...(options.onEntry && { onEntry: options.onEntry }),
          })
      options.signal.throwIfAborted()
    } catch (err) {
      throw options.signal.aborted ? err : untouched(err as Error)
    }
    if (!unchanged()) throw new Error(`${folder.parent} was moved or replaced (by a link?) during the restore; nothing was restored`)
    // Re-checked now (not only when the task was accepted): the target may have changed meanwhile.
    const target = join(parent.dir, name)
    const now = await lstatOrNone(target)
    if (now && !now.isDirectory()) throw new Error(`${folder.path} is no longer a folder; nothing was restored`)
    if (!now) {
      // Private while being filled; an ordinary folder once it is the target.
      options.journal?.merging()
      await chmod(temporary, 0o755)
      await rename(temporary, target)
      return result
    }
    const into = holdChild(parent.dir, name)
    try {
      const clashes = await conflicts(held.dir, into.dir, options.overwrite)
      if (clashes.length > 0) {
        const shown = clashes.slice(0, 5).join(', ') + (clashes.length > 5 ? `, and ${clashes.length - 5} more` : '')
        const what = `the target already holds ${clashes.length} of the snapshot's path(s): ${shown}`
        throw new Error(`${what}; nothing was restored (ask to overwrite to replace files)`)
      }
      // From here on the moves are renames: not cancellable, so the target never ends half-merged by a
      // cancel; a kill is completed at the next start (tasks/restoreJournal).
      options.journal?.merging()
      try {
        await moveInto(held.dir, into.dir)
      } catch (err) {
        if (!(err instanceof MergeError)) throw err
        // What was moved stays; what was not is kept where it is, and the message says where.
        keepTemporary = true
        const rest = join(folder.parent, temporaryName)
        throw new Error(
          `moving the restored files into ${folder.path} failed after ${err.moved} entr${err.moved === 1 ? 'y' : 'ies'} had been moved: ${err.message}; ` +
            `${folder.path} holds those, the rest of the restored files are in ${escapeName(rest)}`,
          { cause: err },
        )
      }
      // The moves changed the times of the folders they went into: put the snapshot's back.
      await restoreFolders(into.dir, result.folders)
    } finally {
      into.close()
    }
    return result
  } finally {
    held.close()
    if (!keepTemporary) await removeTree(temporary)
    if (!folder.held) parent.close()
  }
}
