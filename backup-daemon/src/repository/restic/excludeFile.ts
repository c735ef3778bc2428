/**
 * @module repository/restic/excludeFile
 * A folder source's excludes for `restic backup --exclude-file`. Our exclude semantics (the original
 * service's forms, `sources/support/excludeMatcher.ts`) cannot be written as restic patterns, so the folder
 * is walked with our matcher and every path it leaves out is listed, anchored and with restic's pattern
 * characters escaped (a folder left out is listed once: restic skips it whole). No excludes, no walk.
 */
import type { Dirent } from 'node:fs'
import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** restic's `filepath.Match` characters. */
const escapeGlob = (path: string) => path.replace(/[\\*?[\]]/g, (c) => `\\${c}`)

/** The absolute paths under `root` that `excluded` leaves out (folders not descended into). */
export async function excludedPaths(root: string, excluded: (relativePath: string) => boolean, signal?: AbortSignal): Promise<string[]> {
  const out: string[] = []
  const walk = async (relativeDir: string): Promise<void> => {
    signal?.throwIfAborted()
    let entries: Dirent[]
    try {
      entries = await readdir(relativeDir ? join(root, relativeDir) : root, { withFileTypes: true })
    } catch {
      // Gone or unreadable: restic reports what it cannot read itself.
      return
    }
    for (const entry of entries) {
      const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name
      if (excluded(relative)) out.push(join(root, relative))
      else if (entry.isDirectory()) await walk(relative)
    }
  }
  await walk('')
  return out
}

/**
 * Writes the exclude file; undefined when nothing is left out. A path that restic's file format cannot
 * hold exactly (a line break, spaces at either end, or a `$`: restic expands variables in the file with no
 * escape) is returned in `unlisted`.
 */
export async function writeExcludeFile(file: string, paths: string[]): Promise<{ written: boolean; unlisted: string[] }> {
  const unlisted = paths.filter((path) => /[\n\r$]/.test(path) || path !== path.trim())
  const lines = paths.filter((path) => !unlisted.includes(path)).map(escapeGlob)
  if (lines.length === 0) return { written: false, unlisted }
  await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 })
  return { written: true, unlisted }
}
