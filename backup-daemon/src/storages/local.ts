/**
 * @module storages/local
 * The `local` storage: a folder on this machine. Keys map to files below it and can never leave it.
 * Temporary objects are hidden files `.<random>.incomplete` in the target folder, so `commit` is a
 * rename on the same filesystem (atomic) and a crash leaves only files the engine recognises.
 */
import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { z } from 'zod'
import type { PendingObject, Storage, StorageFactory, StoredObject } from './types.js'

const incompleteSuffix = '.incomplete'

export class LocalStorage implements Storage {
  readonly type = 'local'
  readonly canStream = true
  readonly root: string

  constructor(
    readonly name: string,
    root: string,
  ) {
    this.root = resolve(root)
  }

  /** Maps a key to a path below the root; refuses anything that would leave it. */
  private pathOf(key: string): string {
    if (key.includes('\\') || key.includes('\0') || key.startsWith('/') || key.split('/').some((part) => part === '..')) {
      throw new Error(`invalid storage key "${key}"`)
    }
    const path = resolve(this.root, key)
    if (path !== this.root && !path.startsWith(this.root + sep)) throw new Error(`invalid storage key "${key}"`)
    return path
  }

  async write(dir: string, body: Readable, signal: AbortSignal): Promise<PendingObject> {
    const folder = this.pathOf(dir)
    await mkdir(folder, { recursive: true, mode: 0o700 })
    const temp = join(folder, `.${randomBytes(8).toString('hex')}${incompleteSuffix}`)
    let size = 0
    body.on('data', (chunk: Buffer) => (size += chunk.length))
    try {
      // Snapshots hold the backed-up data: owner only (folders 0700), whatever the umask.
      await pipeline(body, createWriteStream(temp, { mode: 0o600 }), { signal })
    } catch (err) {
      await rm(temp, { force: true })
      throw err
    }
    let committed: string | undefined
    return {
      size,
      commit: async (key) => {
        if (committed === key) return
        const target = this.pathOf(key)
        await mkdir(dirname(target), { recursive: true, mode: 0o700 })
        await rename(temp, target)
        committed = key
      },
      discard: async () => {
        if (committed === undefined) await rm(temp, { force: true })
      },
    }
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const start = this.pathOf(prefix)
    const found: StoredObject[] = []
    const walk = async (folder: string): Promise<void> => {
      let entries
      try {
        entries = await readdir(folder, { withFileTypes: true })
      } catch (err) {
        if (this.isNotExist(err)) return
        throw err
      }
      for (const entry of entries) {
        const path = join(folder, entry.name)
        if (entry.isDirectory()) await walk(path)
        else if (entry.isFile()) {
          // A run may commit (rename) or clean up a file between the readdir and this stat: what is gone
          // is simply not listed.
          const info = await stat(path).catch((err: unknown) => {
            if (this.isNotExist(err)) return undefined
            throw err
          })
          if (!info) continue
          const key = relative(this.root, path).split(sep).join('/')
          found.push({ key, size: info.size, modified: info.mtime, incomplete: entry.name.endsWith(incompleteSuffix) })
        }
      }
    }
    await walk(start)
    return found
  }

  async open(key: string): Promise<Readable> {
    const path = this.pathOf(key)
    const info = await stat(path)
    if (!info.isFile()) throw Object.assign(new Error(`not a file: ${key}`), { code: 'ENOENT' })
    return createReadStream(path)
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key)
    await rm(path, { force: true })
    // Remove folders emptied by the deletion (a split set's parts folder), never the root itself.
    for (let folder = dirname(path); folder.startsWith(this.root + sep); folder = dirname(folder)) {
      try {
        await rmdir(folder)
      } catch {
        break
      }
    }
  }

  isNotExist(err: unknown): boolean {
    return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'
  }

  /** A local disk error (full, read-only, permissions) does not go away by trying again at once. */
  isRetryable(): boolean {
    return false
  }
}

const localStorageSchema = z.strictObject({
  type: z.literal('local'),
  name: z.string().min(1),
  /** The folder snapshots are kept in; created when missing. */
  path: z.string().min(1),
})

/** One `type: local` storage entry after parsing. */
export type LocalStorageConfig = z.output<typeof localStorageSchema>

export const localStorage: StorageFactory<LocalStorageConfig> = {
  type: 'local',
  configSchema: localStorageSchema,
  secretKeys: [],
  pathKeys: ['path'],
  writesFolder: (config) => ({ key: 'path', path: config.path }),
  create: (config) => new LocalStorage(config.name, config.path),
}
