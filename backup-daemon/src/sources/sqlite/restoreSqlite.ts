/**
 * @module sources/sqlite/restoreSqlite
 * Puts a `sqlite` source's archive entry back as a database file: the bytes go to a temporary file
 * beside the target, which must pass `PRAGMA integrity_check` before it is renamed into place (an
 * atomic swap on the same filesystem), so a failed restore never leaves a half-written database.
 */
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { rename, rm, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

export interface RestoreSqliteOptions {
  /** Replace an existing file at the target. @default false */
  overwrite?: boolean
  signal?: AbortSignal
}

interface SqliteDatabase {
  prepare(sql: string): { all(): { integrity_check: string }[] }
  close(): void
}

/**
 * Restores `entry` (the bytes of `<name>/<stem>.sqlite`) to `targetFile`.
 * @example
 * await restoreSqlite(entryStream, '/srv/cms/payload.db', { overwrite: true })
 */
export async function restoreSqlite(entry: Readable, targetFile: string, options: RestoreSqliteOptions = {}): Promise<void> {
  if (!options.overwrite && (await stat(targetFile).catch(() => undefined))) {
    entry.destroy()
    throw new Error(`${targetFile} exists (pass overwrite to replace it)`)
  }
  const temp = join(dirname(targetFile), `.${basename(targetFile)}.${randomBytes(4).toString('hex')}.restoring`)
  try {
    await pipeline(entry, createWriteStream(temp, { flags: 'wx', mode: 0o600 }), options.signal ? { signal: options.signal } : {})
    const Database = createRequire(import.meta.url)('libsql') as new (path: string) => SqliteDatabase
    const db = new Database(temp)
    let result: string
    try {
      result = db
        .prepare('PRAGMA integrity_check')
        .all()
        .map((row) => row.integrity_check)
        .join('; ')
    } finally {
      db.close()
    }
    if (result !== 'ok') throw new Error(`the restored database fails its integrity check: ${result.slice(0, 300)}`)
    // A stale WAL or journal of the old file would be applied to the new one: remove them first.
    await Promise.all(['-wal', '-shm', '-journal'].map((suffix) => rm(targetFile + suffix, { force: true })))
    await rename(temp, targetFile)
  } catch (err) {
    await rm(temp, { force: true })
    throw err
  }
}
