/**
 * @module ui/build/listFiles
 * The files of a built UI folder, shared by the build, the server and the freshness test.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

/** Every file under `dir`, relative, with `/` separators, sorted. */
export function listFiles(dir: string): string[] {
  const root = dir.replace(/\/$/, '')
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort()
}
