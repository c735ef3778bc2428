/**
 * @module sources/types
 * What a source gives the archive writer: named entries, one after another, each a file (with a byte
 * stream), a directory or a symbolic link. The archive writer never knows where they come from.
 */
import type { Readable } from 'node:stream'
import type { z } from 'zod'

export interface SourceEntry {
  /** Path inside the archive, `/`-separated, relative (the job prefixes nothing: sources name their own top folder). */
  name: string
  type: 'file' | 'directory' | 'symlink'
  /** Permission bits. */
  mode: number
  mtime: Date
  /**
   * Exact byte count of `open()`, when known before reading. A source that streams data of unknown
   * length (a database dump) leaves it out and the archive writer spools the stream to a temporary file.
   */
  size?: number
  /** Target of a symlink, stored as is and never followed. */
  linkname?: string
  /**
   * The file's bytes; only for `file`. Must honour `signal` (stop reading, free descriptors). A consumer
   * takes an entry's bytes once, through `open` or `read`, never both: a source may hand out a descriptor
   * it opened during the walk (the local source does, so what is read is the very file it checked).
   */
  open?(signal: AbortSignal): Readable
  /**
   * Optional fast path for small files: all bytes at once (one read instead of a stream, far fewer
   * objects per file). The archive writer prefers it when present.
   */
  read?(signal: AbortSignal): Promise<Buffer>
  /**
   * A small file's bytes, already read by the source (`entryBatches`); then neither `open` nor `read` is
   * set. May differ in length from `size` (the file changed between its stat and its read): the archive
   * writer cuts or zero-pads it to `size` and reports the change.
   */
  data?: Buffer
}

export interface Source {
  readonly type: string
  readonly name: string
  /**
   * Yields the entries in archive order. Called once per run; must stop (throwing the abort reason)
   * soon after `signal` aborts.
   */
  entries(signal: AbortSignal): AsyncIterable<SourceEntry>
  /**
   * Optional fast path, preferred by the archive writer: the same entries in arrays (small files with
   * their `data`), so what costs per entry elsewhere (a promise, a generator step) costs per batch. A
   * consumer finishes with a batch, opening its streamed entries and copying out any `data` it keeps, before
   * it asks for the next one: the source may read the next batch's small files into the same memory.
   */
  entryBatches?(signal: AbortSignal): AsyncIterable<SourceEntry[]>
  /**
   * Optional fastest path for a tar archive: the source's entries as ready tar bytes (ustar + PAX as
   * `tar/tarWriter.ts` writes them, no end-of-archive blocks), built off the main thread (the local
   * source: `sources/local/tarWorker/`). Undefined when the source cannot build them this time; the archive
   * writer then uses `entryBatches` or `entries`. The archive writer asks for them only when compression
   * leaves a core free (plain tar, or fewer compression threads than cores): otherwise the extra thread
   * competes with the compressors (measured slower on 2 cores).
   */
  tarChunks?(signal: AbortSignal, hooks: TarChunkHooks): AsyncIterable<Buffer> | undefined
  /**
   * Optional: the source as a folder on this machine (the local source's folder; a remote source's mirror,
   * synced first), for a repository that backs folders up itself (restic: an unchanged file costs a stat).
   * Undefined when there is none this time (a remote source without a mirror): its entries are read then.
   */
  tree?(signal: AbortSignal): Promise<SourceTree | undefined>
}

/** A source's folder (`Source.tree`): its contents go under `<source name>/`, minus what `excluded` matches. */
export interface SourceTree {
  /** Absolute path of the folder. */
  path: string
  /** True for a path (relative to `path`, `/`-separated) left out; a folder left out is left out whole. */
  excluded?(relativePath: string): boolean
}

/** What a source building its own tar bytes reports (it reads the files itself). */
export interface TarChunkHooks {
  /** Files and bytes of file content read since the last call (per chunk or so, never per file), and the last file read. */
  onProgress?(files: number, bytes: number, currentFile: string | undefined): void
  /** A file's length changed while it was read: its copy was zero-padded (`read` < `announced`) or cut. */
  onFileChanged?(name: string, announced: number, read: number): void
}

/** Context handed to a source: where to log progress (lines go to the job's log). */
export interface SourceContext {
  log(level: 'info' | 'warn', message: string): void
}

/** What every source entry has; each type's full config is its factory's schema output. */
export interface SourceConfigBase {
  type: string
  /** Unique within the job; the folder name inside the archive. */
  name: string
}

/** One `restore.databases` entry after parsing: its `type` names the kind; the other keys are that kind's. */
export interface RestoreTargetBase {
  type: string
}

export interface DatabaseRestoreOptions {
  /** Replace what is there (a file, tables, collections); without it a restore that would replace data fails. */
  overwrite: boolean
  signal?: AbortSignal
}

/**
 * What a database kind restores and into what. The restore code reads no kind name: `restore/restoreDatabases`
 * (the CLI's `--into-database`), the API's restore task, `restore.databases` and the CLI loop over these.
 */
export interface DatabaseRestore<C extends SourceConfigBase = SourceConfigBase> {
  /** Whether this config's dump can be put back by the daemon (a live Redis server cannot). @default always */
  restorable?(config: C): boolean
  /** With `restorable`: which configs are, in words for messages (e.g. "with a path"). */
  restorableWhen?: string
  /** Puts an archive entry's bytes back where `config` reads from; resolves with where, naming no secret. */
  restore(entry: Readable, config: C, options: DatabaseRestoreOptions): Promise<string>
  /** Into another database (the API, `restore.databases`); absent: only where the source reads from (the CLI). */
  into?: RestoreInto<C>
}

/** How a kind's dump goes into a database of `restore.databases` instead of its own. */
export interface RestoreInto<C extends SourceConfigBase = SourceConfigBase> {
  /**
   * The `restore.databases` entries this kind's dumps go into, by their `type` (strict zod objects with
   * `type` as that literal). Kinds of one family list the same schemas (a `mysql` dump goes into a `mariadb`
   * target too).
   */
  targets: Readonly<Record<string, z.ZodObject>>
  /**
   * The source with the target's connection in place of its own (every connection key from the target).
   * `target` is always one of `targets`, parsed by its schema (callers check its `type` first), so a kind
   * may narrow it to its schema's output; the same holds for `targetLabel`.
   */
  retarget(config: C, target: RestoreTargetBase): C
  /** A target named without secrets (a file path, a database name). */
  targetLabel(target: RestoreTargetBase): string
  /** Appended to a failed restore's message: what the failure left behind (e.g. one transaction). */
  failureNote?: string
}

/** One source type: the schema of its config entry and how to build it. Registered in `sources/all.ts`. */
export interface SourceFactory<C extends SourceConfigBase = SourceConfigBase> {
  type: C['type']
  /** Strict zod object for one `jobs[].sources[]` entry with `type` as a literal. */
  configSchema: z.ZodObject
  /** Keys of the config entry that hold secrets (redacted in `GET /jobs/{name}/config`). */
  secretKeys: string[]
  /** Keys that are filesystem paths, resolved against the config file's folder. */
  pathKeys?: string[]
  /** Paths the source reads that `check-config` checks exist (`config/checkPaths`): a key and what it names. */
  readPaths?: { key: string; kind: 'file' | 'folder' }[]
  /** Its entries are a dump made for the run (progress phase `dumping`), not files copied (`archiving`). */
  dumps?: boolean
  /** Present for a database kind: how its dumps are restored (`DatabaseRestore`). */
  restore?: DatabaseRestore<C>
  create(config: C, context: SourceContext): Source
  /**
   * The bytes a run of this source will read, counted before (and while) it runs, for a first run's
   * progress percentage and ETA. Optional: a source that cannot know (a dump) leaves it out, and a job
   * with such a source shows no total. Must stop (throwing the abort reason) when `signal` aborts.
   */
  countTotals?(config: C, signal: AbortSignal): Promise<number>
}
