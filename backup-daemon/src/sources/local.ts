/**
 * @module sources/local
 * The `local` source: a folder, walked depth first in name order, minus the `exclude` globs
 * (picomatch, relative to the folder; a matching folder is skipped whole). Symbolic links are stored
 * as links and never followed, so nothing outside the folder is read. Entries are named
 * `<source name>/<relative path>` in the archive.
 */
import { constants, existsSync, type Stats } from 'node:fs'
import { lstat, open, opendir, readlink, stat, type FileHandle } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import { excludeMatcher } from './support/excludeMatcher.js'
import { sourceName } from './support/sourceName.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from './types.js'

/** Files up to this size are read in one call rather than streamed. */
const smallFile = 256 * 1024

/**
 * On Linux a folder already opened is reached again as `/proc/self/fd/<fd>/<name>` (what `openat` does):
 * a folder renamed, or swapped for a link to somewhere else, after it was opened cannot redirect the
 * reads of its entries. Elsewhere entries are reached by path; the checks below still apply.
 */
const viaFd = existsSync('/proc/self/fd')
const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
// O_NONBLOCK: a file swapped for a FIFO after its lstat must not block the open.
const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/** Errors of an open that mean "this is no longer what the walk saw" (a link now, a file now). */
const changedCodes = new Set(['ELOOP', 'ENOTDIR', 'EISDIR', 'ENXIO', 'EMLINK'])

const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino

export class LocalSource implements Source {
  readonly type = 'local'
  private readonly root: string
  private readonly excluded: (path: string) => boolean

  constructor(
    readonly name: string,
    root: string,
    exclude: string[],
    private readonly context: SourceContext,
  ) {
    this.root = resolve(root)
    this.excluded = excludeMatcher(exclude)
  }

  async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
    // The configured folder itself may be a link (e.g. /srv/current); nothing below it is followed.
    const top = await stat(this.root)
    if (!top.isDirectory()) throw new Error(`source "${this.name}": ${this.root} is not a directory`)
    const handle = await open(this.root, constants.O_RDONLY | constants.O_DIRECTORY)
    try {
      yield { name: this.name, type: 'directory', mode: top.mode & 0o7777, mtime: top.mtime }
      yield* this.walk('', handle, signal)
    } finally {
      await handle.close()
    }
  }

  private changed(relativePath: string): void {
    this.context.log('warn', `source "${this.name}": skipped ${relativePath}: it changed while the backup read it (replaced by a link or another file)`)
  }

  /** Opens `path` with `flags`; undefined (after a warning when it changed, silently when it is gone) when it cannot be. */
  private async openEntry(path: string, flags: number, relativePath: string): Promise<FileHandle | undefined> {
    try {
      return await open(path, flags)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? ''
      if (code === 'ENOENT') return undefined
      if (changedCodes.has(code)) {
        this.changed(relativePath)
        return undefined
      }
      throw err
    }
  }

  private async *walk(relativeDir: string, dir: FileHandle, signal: AbortSignal): AsyncIterable<SourceEntry> {
    const base = viaFd ? `/proc/self/fd/${dir.fd}` : join(this.root, relativeDir)
    const names: string[] = []
    for await (const entry of await opendir(base)) names.push(entry.name)
    // Name order makes archives of an unchanged tree identical from run to run.
    names.sort()
    for (const entryName of names) {
      signal.throwIfAborted()
      const relativePath = relativeDir ? `${relativeDir}/${entryName}` : entryName
      if (this.excluded(relativePath)) continue
      const path = join(base, entryName)
      let info
      try {
        info = await lstat(path)
      } catch (err) {
        // Deleted between listing and reading: a live folder changes under us; skip it.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw err
      }
      const name = `${this.name}/${relativePath}`
      if (info.isDirectory() || info.isFile()) {
        // Opened without following a link, then checked to be the very file the lstat saw: a swap
        // between the two (a folder replaced by a link out of the tree) is skipped, never followed.
        const handle = await this.openEntry(path, info.isDirectory() ? dirFlags : fileFlags, relativePath)
        if (!handle) continue
        let claimed = false
        try {
          const opened = await handle.stat()
          if (!sameFile(opened, info) || opened.isDirectory() !== info.isDirectory()) {
            this.changed(relativePath)
            continue
          }
          const mode = opened.mode & 0o7777
          if (opened.isDirectory()) {
            yield { name, type: 'directory', mode, mtime: opened.mtime }
            yield* this.walk(relativePath, handle, signal)
            continue
          }
          const claim = () => {
            if (claimed) throw new Error(`source "${this.name}": ${relativePath} read twice`)
            claimed = true
            return handle
          }
          yield {
            name,
            type: 'file',
            mode,
            mtime: opened.mtime,
            size: opened.size,
            // The stream closes the handle when it ends, fails or is aborted.
            open: (s) => claim().createReadStream({ signal: s }),
            read:
              opened.size <= smallFile
                ? async (s) => {
                    const h = claim()
                    try {
                      return await h.readFile({ signal: s })
                    } finally {
                      await h.close()
                    }
                  }
                : undefined,
          }
        } finally {
          // A file the archive writer never read, or a folder walked to its end.
          if (!claimed) await handle.close()
        }
      } else if (info.isSymbolicLink()) {
        yield { name, type: 'symlink', mode: info.mode & 0o7777, mtime: info.mtime, linkname: await readlink(path) }
      } else {
        this.context.log('warn', `source "${this.name}": skipped ${relativePath} (not a file, folder or link)`)
      }
    }
  }
}

const localSourceSchema = z.strictObject({
  type: z.literal('local'),
  name: sourceName,
  /** The folder backed up (its contents go under `<name>/` in the archive). */
  path: z.string().min(1),
  /** Exclude patterns (`sources/support/excludeMatcher.ts`): globs on the relative path or the name, `dir/`, bare names. YAML also `excludes`. */
  exclude: z.array(z.string()).optional(),
})

/** One `type: local` source entry after parsing. */
export type LocalSourceConfig = z.output<typeof localSourceSchema>

export const localSource: SourceFactory<LocalSourceConfig> = {
  type: 'local',
  configSchema: localSourceSchema,
  secretKeys: [],
  pathKeys: ['path'],
  create: (config, context) => new LocalSource(config.name, config.path, config.exclude ?? [], context),
}
