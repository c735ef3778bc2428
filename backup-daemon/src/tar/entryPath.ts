/**
 * @module tar/entryPath
 * The one rule for a path that comes from a snapshot (a tar entry, a hard link's target, a record's file,
 * a `video.json` file, a manifest's part): a snapshot is untrusted input, so such a path must stay inside
 * the folder it belongs to. Refused are only the paths that truly escape: absolute ones, ones with a `..`
 * step, and ones holding a NUL byte (no Linux name can; a NUL cuts a path short in the system calls).
 * Everything else a Linux file system allows in a name is kept: a backslash, a newline or another control
 * character, bytes that are not UTF-8 (`tar/byteNames`), a leading `-`, 255-byte names, any depth.
 * `.` steps and repeated slashes are dropped, as tar does (`./a//b` is `a/b`).
 */
import { escapeName } from '../logs/escapeControl.js'

/** Why a path from a snapshot is refused: a rule, in words, that names no internal path. */
export type EntryPathProblem = 'it is an absolute path' | 'it has a ".." step' | 'it holds a NUL byte' | 'it names no file (empty)'

/** The path's components (`a/b/c` → `['a', 'b', 'c']`), or the rule it breaks. */
export function entryComponents(path: string): { components: string[] } | { problem: EntryPathProblem } {
  if (path.includes('\0')) return { problem: 'it holds a NUL byte' }
  if (path.startsWith('/')) return { problem: 'it is an absolute path' }
  const components = path.split('/').filter((part) => part !== '' && part !== '.')
  if (components.includes('..')) return { problem: 'it has a ".." step' }
  if (components.length === 0) return { problem: 'it names no file (empty)' }
  return { components }
}

/** A path from a snapshot that breaks the rule; its message names the path (escaped) and the rule. */
export class UnsafeEntryError extends Error {
  override name = 'UnsafeEntryError'
  constructor(
    readonly what: string,
    readonly path: string,
    readonly why: string,
  ) {
    super(`refusing ${what} "${escapeName(path)}": ${why}`)
  }
}

/** The components of `path`, or an `UnsafeEntryError` (`what`: "archive entry", "the record's file", …). */
export function safeComponents(path: string, what: string): string[] {
  const checked = entryComponents(path)
  if ('problem' in checked) throw new UnsafeEntryError(what, path, checked.problem)
  return checked.components
}
