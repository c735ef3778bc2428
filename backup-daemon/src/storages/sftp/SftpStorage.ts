/**
 * @module storages/sftp/SftpStorage
 * The `sftp` storage: a folder on an SSH server, over SFTP. Two-phase writes like the local folder:
 * `write` streams into `<dir>/.<random>.incomplete` (a hidden temporary file every listing reports
 * as incomplete) and `commit` renames it to its key. OpenSSH's rename never replaces an existing
 * file (it links, then unlinks), so a commit cannot clobber a snapshot. A connection that dies mid
 * upload leaves only the `.incomplete` file, which the engine's leftover sweep removes.
 */
import { randomBytes } from 'node:crypto'
import { posix } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { SFTPWrapper, Stats } from 'ssh2'
import { checkKey } from '../remote/checkKey.js'
import { cleanupBoundMs, settleWithin } from '../remote/settleWithin.js'
import type { PendingObject, Storage, StoredObject } from '../types.js'
import type { SftpConnection } from './SftpConnection.js'
import { remoteReader, remoteWriter } from './remoteStreams.js'
import { isSftpNotExist, isSftpRetryable } from './sftpErrors.js'

const incompleteSuffix = '.incomplete'

/** One SFTP call as a promise. */
function call<T = void>(fn: (callback: (err: Error | undefined | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))))
}

export class SftpStorage implements Storage {
  readonly type = 'sftp'
  readonly canStream = true
  private readonly root: string

  constructor(
    readonly name: string,
    private readonly connection: SftpConnection,
    /** The folder on the server (relative paths start at the login folder). */
    root: string,
  ) {
    this.root = posix.normalize(root).replace(/\/+$/, '') || '/'
  }

  private pathOf(key: string): string {
    return posix.join(this.root, checkKey(key))
  }

  /** `mkdir -p`: the missing folders from the nearest existing one down. */
  private async makeFolders(sftp: SFTPWrapper, folder: string): Promise<void> {
    const stats = await call<Stats>((cb) => sftp.stat(folder, cb)).catch((err: unknown) => {
      if (isSftpNotExist(err)) return undefined
      throw err
    })
    if (stats?.isDirectory()) return
    if (stats) throw new Error(`${folder} exists on the server and is not a folder`)
    const parent = posix.dirname(folder)
    if (parent !== folder) await this.makeFolders(sftp, parent)
    await call((cb) => sftp.mkdir(folder, cb)).catch(async (err: unknown) => {
      // Made meanwhile by a concurrent call: fine.
      const made = await call<Stats>((cb) => sftp.stat(folder, cb)).catch(() => undefined)
      if (!made?.isDirectory()) throw err
    })
  }

  async write(dir: string, body: Readable, signal: AbortSignal): Promise<PendingObject> {
    const folder = this.pathOf(dir)
    const temp = posix.join(folder, `.${randomBytes(8).toString('hex')}${incompleteSuffix}`)
    let size = 0
    await this.connection.use(async (sftp) => {
      await this.makeFolders(sftp, folder)
      try {
        await pipeline(
          body,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              size += chunk.length
              yield chunk
            }
          },
          remoteWriter(sftp, temp),
          { signal },
        )
      } catch (err) {
        await this.removeTemp(sftp, temp, err)
        throw signal.aborted ? signal.reason : err
      }
    })
    let committed: string | undefined
    return {
      size,
      commit: async (key) => {
        if (committed === key) return
        const target = this.pathOf(key)
        await this.connection.use(async (sftp) => {
          await this.makeFolders(sftp, posix.dirname(target))
          await call((cb) => sftp.rename(temp, target, cb)).catch(async (err: unknown) => {
            // A retry after a rename whose answer was lost: the temp file is gone and the target is there.
            const [from, to] = await Promise.all([
              call<Stats>((cb) => sftp.stat(temp, cb)).catch(() => undefined),
              call<Stats>((cb) => sftp.stat(target, cb)).catch(() => undefined),
            ])
            if (from || to?.size !== size) throw err
          })
        })
        committed = key
      },
      discard: async () => {
        if (committed !== undefined) return
        await this.connection.use((sftp) =>
          call((cb) => sftp.unlink(temp, cb)).catch((err: unknown) => {
            if (!isSftpNotExist(err)) throw err
          }),
        )
      },
    }
  }

  /**
   * Best effort after a failed upload: when the connection itself broke, once more over a new one,
   * so a cut connection leaves no `.incomplete` file behind (the engine's sweep is the last resort).
   * Bounded (a third of the storage's `timeout`, 10 s at most): a cancel must end, and a server that
   * stopped answering would otherwise hold it until the connection is declared dead.
   */
  private async removeTemp(sftp: SFTPWrapper, temp: string, cause: unknown): Promise<void> {
    const unlink = (channel: SFTPWrapper) =>
      call((cb) => channel.unlink(temp, cb)).catch((err: unknown) => {
        if (!isSftpNotExist(err)) throw err
      })
    const remove = async () => {
      if (!isSftpRetryable(cause)) {
        const failed = await unlink(sftp).then(
          () => undefined,
          (err: unknown) => err,
        )
        if (!isSftpRetryable(failed)) return
      }
      this.connection.drop()
      await this.connection.use(unlink)
    }
    const outcome = await settleWithin(remove(), cleanupBoundMs(this.connection.timeoutMs))
    // No answer within the bound: this connection is not trusted with the next call.
    if (outcome === 'late') this.connection.drop()
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const slash = prefix.lastIndexOf('/')
    const start = slash === -1 ? '' : prefix.slice(0, slash)
    if (start) checkKey(start)
    const found: StoredObject[] = []
    await this.connection.use(async (sftp) => {
      const walk = async (dir: string): Promise<void> => {
        const entries = await call<{ filename: string; attrs: Stats }[]>((cb) => sftp.readdir(dir ? posix.join(this.root, dir) : this.root, cb)).catch(
          (err: unknown) => {
            if (isSftpNotExist(err)) return []
            throw err
          },
        )
        for (const { filename, attrs } of entries) {
          if (filename === '.' || filename === '..') continue
          const key = dir ? `${dir}/${filename}` : filename
          if (attrs.isDirectory()) {
            if (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`)) await walk(key)
          } else if (attrs.isFile() && key.startsWith(prefix)) {
            found.push({ key, size: attrs.size, modified: new Date(attrs.mtime * 1000), incomplete: filename.endsWith(incompleteSuffix) })
          }
        }
      }
      await walk(start)
    })
    return found
  }

  async open(key: string): Promise<Readable> {
    const path = this.pathOf(key)
    const sftp = await this.connection.acquire()
    try {
      const stats = await call<Stats>((cb) => sftp.stat(path, cb))
      if (!stats.isFile()) throw Object.assign(new Error(`not a file: ${key}`), { code: 2 })
      const handle = await call<Buffer>((cb) => sftp.open(path, 'r', cb))
      // The connection stays in use (and alive) until the download ends or is dropped.
      return remoteReader(
        sftp,
        handle,
        stats.size,
        () => this.connection.release(),
        (err) => this.connection.explain(err) as Error,
      )
    } catch (err) {
      this.connection.release()
      throw err
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key)
    await this.connection.use(async (sftp) => {
      await call((cb) => sftp.unlink(path, cb)).catch((err: unknown) => {
        if (!isSftpNotExist(err)) throw err
      })
      // Remove the folders this deletion emptied (a split set's), never the root: rmdir fails on a non-empty one.
      for (let folder = posix.dirname(path); folder !== this.root && folder !== '.' && folder !== '/'; folder = posix.dirname(folder)) {
        const removed = await call((cb) => sftp.rmdir(folder, cb)).then(
          () => true,
          () => false,
        )
        if (!removed) break
      }
    })
  }

  isNotExist(err: unknown): boolean {
    return isSftpNotExist(err)
  }

  isRetryable(err: unknown): boolean {
    return isSftpRetryable(err)
  }
}
