/**
 * @module sources/local
 * The `local` source: a folder, walked depth first in name order, minus the `exclude` globs
 * (picomatch, relative to the folder; a matching folder is skipped whole). Symbolic links are stored
 * as links and never followed, so nothing outside the folder is read. Entries are named
 * `<source name>/<relative path>` in the archive.
 */
import { closeSync, createReadStream } from 'node:fs'
import { resolve } from 'node:path'
import { z } from 'zod'
import { tarWorkerTree } from './tarWorker/tarWorkerTree.js'
import { countLocalTrees } from './countLocalTrees.js'
import { excludeMatcher } from '../support/excludeMatcher.js'
import { topOf, walkTree } from './localWalk.js'
import { sourceName } from '../support/sourceName.js'
import type { Source, SourceContext, SourceEntry, SourceFactory, SourceTree, TarChunkHooks } from '../types.js'

/** A batch ends after this many entries or bytes of small files: the event loop gets a turn between batches. */
const batchEntries = 64
const batchBytes = 256 * 1024
/** Large files are streamed in reads of this size (1 MiB ones raised peak RSS by ~15 MiB, measured). */
const streamChunk = 256 * 1024

export interface LocalSourceOptions {
  /**
   * How a tar archive of this source is built: `worker` in a worker thread (`tarChunks`,
   * `sources/local/tarWorker/`; in this thread when no worker can start), `thread` by the same builder in this
   * thread, `batches` by the archive writer from `batches` (the path before the worker).
   * @default 'worker', or 'batches' when `BACKUP_DAEMON_TAR_WORKER=0`
   */
  tarBuilder?: 'worker' | 'thread' | 'batches'
}

/**
 * The walk (`sources/local/localWalk.ts`) is synchronous within a batch (measured: five thread-pool round trips
 * per small file, each a promise, cost ~30x what `tar` spends per file). A batch is bounded
 * (`batchEntries`, `batchBytes`), so the event loop is held for a few milliseconds at most; the abort
 * signal is checked before every entry. A tar archive is built off the main thread (`tarChunks`).
 */
export class LocalSource implements Source {
  readonly type = 'local'
  private readonly root: string
  private readonly exclude: string[]
  /** Undefined without exclude patterns (one call less per entry). */
  private readonly excluded: ((path: string) => boolean) | undefined
  private readonly tarBuilder: NonNullable<LocalSourceOptions['tarBuilder']>

  constructor(
    readonly name: string,
    root: string,
    exclude: string[],
    private readonly context: SourceContext,
    options: LocalSourceOptions = {},
  ) {
    this.root = resolve(root)
    this.exclude = exclude
    this.excluded = exclude.length > 0 ? excludeMatcher(exclude) : undefined
    this.tarBuilder = options.tarBuilder ?? (process.env.BACKUP_DAEMON_TAR_WORKER === '0' ? 'batches' : 'worker')
  }

  /**
   * Small files come with their `data` (a view of the walk's ring buffer for files under 32 KiB: valid
   * until the next batch is asked for), larger ones with `open` on the descriptor the walk checked.
   */
  async *batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    const top = await topOf(this.root, this.name)
    const walk = walkTree({ root: this.root, name: this.name, top, excluded: this.excluded, log: this.context.log, check: () => signal.throwIfAborted() })
    let batch: SourceEntry[] = []
    let bytes = 0
    try {
      for (const { entry, fd } of walk) {
        if (fd === undefined) {
          batch.push(entry)
          bytes += entry.data?.length ?? 0
          if (batch.length < batchEntries && bytes < batchBytes) continue
        } else {
          // Streamed: the batch ends here, and the descriptor is the stream's (closed when it ends or fails).
          let claimed = false
          batch.push({
            ...entry,
            open: (s) => {
              if (claimed) throw new Error(`source "${this.name}": ${entry.name} read twice`)
              claimed = true
              return createReadStream('', { fd, signal: s, highWaterMark: streamChunk })
            },
          })
          try {
            const full = batch
            batch = []
            bytes = 0
            yield full
          } finally {
            // A file the archive writer never opened (the walk moved on, or stopped).
            if (!claimed) closeSync(fd)
          }
          continue
        }
        const full = batch
        batch = []
        bytes = 0
        yield full
      }
      if (batch.length > 0) yield batch
    } finally {
      walk.return()
    }
  }

  /**
   * The tar bytes of the whole source, built in a worker thread (`sources/local/tarWorker/`); undefined when
   * they are built from `batches` (`tarBuilder: 'batches'`).
   */
  tarChunks(signal: AbortSignal, hooks: TarChunkHooks): AsyncIterable<Buffer> | undefined {
    if (this.tarBuilder === 'batches') return undefined
    const inThread = this.tarBuilder === 'thread'
    return tarWorkerTree({ root: this.root, name: this.name, exclude: this.exclude, signal, hooks, log: this.context.log, inThread })
  }

  /** The folder itself (a restic repository backs it up as a path). */
  async tree(signal: AbortSignal): Promise<SourceTree> {
    signal.throwIfAborted()
    await topOf(this.root, this.name)
    return { path: this.root, ...(this.excluded && { excluded: this.excluded }) }
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
  readPaths: [{ key: 'path', kind: 'folder' }],
  create: (config, context) => new LocalSource(config.name, config.path, config.exclude ?? [], context),
  countTotals: (config, signal) => countLocalTrees([{ path: config.path, exclude: config.exclude }], signal),
}
