/**
 * @module sources/redis/restoreRedis
 * Puts a `redis` source's `dump.rdb` back as a file a Redis server loads at start (its `dir` and
 * `dbfilename`). A running server would overwrite the file at its next save or shutdown, so this is
 * for a stopped server: stop it, restore, start it. The bytes go to a temporary file beside the
 * target, checked (the `REDIS` header, and `redis-check-rdb` when installed) before it is renamed
 * into place, so a failed restore never leaves a half-written dump.
 */
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { open, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { findExecutable } from '../support/findExecutable.js'
import { runChild } from '../support/runChild.js'

export interface RestoreRedisOptions {
  /** Replace an existing file at the target. @default false */
  overwrite?: boolean
  signal?: AbortSignal
}

/**
 * @example
 * await restoreRedis(entryStream, '/var/lib/redis/dump.rdb', { overwrite: true }) // with the server stopped
 */
export async function restoreRedis(entry: Readable, targetFile: string, options: RestoreRedisOptions = {}): Promise<void> {
  const signal = options.signal ?? new AbortController().signal
  if (!options.overwrite && (await stat(targetFile).catch(() => undefined))) {
    entry.destroy()
    throw new Error(`${targetFile} exists (pass overwrite to replace it)`)
  }
  const temp = join(dirname(targetFile), `.${basename(targetFile)}.${randomBytes(4).toString('hex')}.restoring`)
  try {
    await pipeline(entry, createWriteStream(temp, { flags: 'wx', mode: 0o600 }), { signal })
    const file = await open(temp)
    const head = Buffer.alloc(5)
    try {
      await file.read(head, 0, 5, 0)
    } finally {
      await file.close()
    }
    if (head.toString('latin1') !== 'REDIS') throw new Error('the restored file is not an RDB file (it does not start with "REDIS")')
    const checker = await findExecutable(['redis-check-rdb'])
    if (checker)
      await runChild(checker, [temp], { signal, tailLines: 3 }).catch((err: Error) =>
        Promise.reject(new Error(`the restored RDB fails redis-check-rdb: ${err.message}`)),
      )
    await rename(temp, targetFile)
  } catch (err) {
    await rm(temp, { force: true })
    throw err
  }
}
