/**
 * @module sources/support/findExecutable
 * The first of several program names found on `PATH` (e.g. `mariadb-dump`, then `mysqldump`), so a
 * source can prefer a tool and fall back to its older name, as the original service does.
 */
import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import { delimiter, isAbsolute, join } from 'node:path'

/** Resolves to the full path of the first name that is an executable file on `path`, else undefined. */
export async function findExecutable(names: string[], path = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const name of names) {
    const candidates = isAbsolute(name)
      ? [name]
      : path
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, name))
    for (const candidate of candidates) {
      try {
        await access(candidate, constants.X_OK)
        return candidate
      } catch {}
    }
  }
  return undefined
}
