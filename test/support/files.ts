/**
 * @module test/support/files
 * Reading what a snapshot or a restore wrote: every file below a folder, and a file's digest.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

/** Every file below `dir` (full paths); none when `dir` does not exist. */
export function walk(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? walk(full) : [full]
  })
}
