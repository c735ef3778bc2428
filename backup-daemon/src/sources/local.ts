/**
 * @module sources/local
 * The `local` source: a folder, walked depth first in name order, minus the `exclude` globs
 * (picomatch, relative to the folder; a matching folder is skipped whole). Symbolic links are stored
 * as links and never followed, so nothing outside the folder is read. Entries are named
 * `<source name>/<relative path>` in the archive.
 */
import { createReadStream } from 'node:fs'
import { lstat, opendir, readFile, readlink, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import type { LocalSourceConfig } from '../config/types.js'
import { excludeMatcher } from './support/excludeMatcher.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from './types.js'

/** Files up to this size are read in one call rather than streamed. */
const smallFile = 256 * 1024

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
    yield { name: this.name, type: 'directory', mode: top.mode & 0o7777, mtime: top.mtime }
    yield* this.walk('', signal)
  }

  private async *walk(relativeDir: string, signal: AbortSignal): AsyncIterable<SourceEntry> {
    const names: string[] = []
    for await (const entry of await opendir(join(this.root, relativeDir))) names.push(entry.name)
    // Name order makes archives of an unchanged tree identical from run to run.
    names.sort()
    for (const entryName of names) {
      signal.throwIfAborted()
      const relativePath = relativeDir ? `${relativeDir}/${entryName}` : entryName
      if (this.excluded(relativePath)) continue
      const path = join(this.root, relativePath)
      let info
      try {
        info = await lstat(path)
      } catch (err) {
        // Deleted between listing and reading: a live folder changes under us; skip it.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw err
      }
      const name = `${this.name}/${relativePath}`
      const mode = info.mode & 0o7777
      if (info.isDirectory()) {
        yield { name, type: 'directory', mode, mtime: info.mtime }
        yield* this.walk(relativePath, signal)
      } else if (info.isFile()) {
        const small = info.size <= smallFile
        yield {
          name,
          type: 'file',
          mode,
          mtime: info.mtime,
          size: info.size,
          open: (s) => createReadStream(path, { signal: s }),
          read: small ? (s) => readFile(path, { signal: s }) : undefined,
        }
      } else if (info.isSymbolicLink()) {
        yield { name, type: 'symlink', mode, mtime: info.mtime, linkname: await readlink(path) }
      } else {
        this.context.log('warn', `source "${this.name}": skipped ${relativePath} (not a file, folder or link)`)
      }
    }
  }
}

export const localSource: SourceFactory<LocalSourceConfig> = {
  type: 'local',
  configSchema: z.strictObject({
    type: z.literal('local'),
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-" (it names a folder in the archive)'),
    path: z.string().min(1),
    exclude: z.array(z.string()).optional(),
  }),
  secretKeys: [],
  pathKeys: ['path'],
  create: (config, context) => new LocalSource(config.name, config.path, config.exclude ?? [], context),
}
