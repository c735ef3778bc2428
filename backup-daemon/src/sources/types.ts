/**
 * @module sources/types
 * What a source gives the archive writer: named entries in batches, each a file (with its bytes read or a
 * byte stream), a directory or a symbolic link; optionally, ready tar bytes. The archive writer never knows
 * where they come from.
 */
import type { Readable } from 'node:stream'
import type { z } from 'zod'
import type { DigestKind } from '../tar/fileDigest.js'
import type { SourceRecord } from '../tar/snapshotRecord.js'

export interface SourceEntry {
  /** Path inside the archive, `/`-separated, relative (the job prefixes nothing: sources name their own top folder). */
  name: string
  type: 'file' | 'directory' | 'symlink'
  /** Permission bits. */
  mode: number
  mtime: Date
  /**
   * Exact byte count of the file (`open()`'s stream or `data`), when known before reading. A source that streams data of unknown
   * length (a database dump) leaves it out and the archive writer spools the stream to a temporary file.
   */
  size?: number
  /** Target of a symlink, stored as is and never followed. */
  linkname?: string
  /**
   * The file's bytes as a stream; only for `file`, when `data` is not set. Must honour `signal` (stop
   * reading, free descriptors). Called at most once: a source may hand out a descriptor it opened during
   * the walk (the local source does, so what is read is the very file it checked), and close it when the
   * consumer asks for the next batch without having opened it.
   */
  open?(signal: AbortSignal): Readable
  /**
   * A small file's bytes, already read by the source; then `open` is not set. Valid only until the consumer
   * asks for the next batch (the local source reads the next small files into the same memory): a consumer
   * that keeps bytes longer copies them. May differ in length from `size` (the file changed between its stat
   * and its read): the archive writer cuts or zero-pads it to `size` and reports the change.
   */
  data?: Buffer
}

/**
 * A source hands its data over in at most two ways (README "Why a source has two ways to hand data over"):
 * `batches`, which every source has and every archive format reads, and `tarChunks`, a tar-only fast path.
 */
export interface Source {
  readonly type: string
  readonly name: string
  /**
   * The entries in archive order, in arrays: what costs per step of an async iterator (a promise, a
   * generator step) costs per batch, and a source may read small files' bytes ahead into `data`. A source
   * that makes one entry at a time wraps its generator with `sources/support/oneByOne.ts`. A consumer
   * finishes with a batch (opens the streams it wants, copies out any `data` it keeps) before it asks for
   * the next one. Called once per run; must stop (throwing the abort reason) soon after `signal` aborts.
   */
  batches(signal: AbortSignal): AsyncIterable<SourceEntry[]>
  /**
   * Optional fast path for a tar archive: the source's entries as ready tar bytes (ustar + PAX as
   * `tar/tarWriter.ts` writes them, no end-of-archive blocks), built off the main thread (the local
   * source: `sources/local/tarWorker/`). Undefined when the source cannot build them this time; the archive
   * writer then reads `batches`. The archive writer asks for them only when compression leaves a core free
   * (plain tar, or fewer compression threads than cores): otherwise the extra thread competes with the
   * compressors (measured slower on 2 cores).
   */
  tarChunks?(signal: AbortSignal, hooks: TarChunkHooks): AsyncIterable<Buffer> | undefined
  /**
   * What this run recorded for a restore drill to compare with (a database: its tables and row counts at
   * dump time, read from the copy it dumped), asked once its entries have all been read; undefined when
   * nothing. Goes into the snapshot's record (`tar/snapshotRecord.ts`) under the source's name.
   */
  recorded?(): SourceRecord | undefined
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
  /** Record every file entry's size and digest with this digest, handed over through `onRecorded`. */
  record?: DigestKind
  /**
   * Files whose bytes are all built, with their digests (per chunk or so), in archive order: the record's
   * JSON items comma-joined as UTF-8 (`TarWriter.takeRecorded`), so a worker hands over one piece of memory, not an array per file.
   */
  onRecorded?(items: Uint8Array): void
}

/** Context handed to a source: where to log progress (lines go to the job's log). */
export interface SourceContext {
  log(level: 'info' | 'warn', message: string): void
  /**
   * True when the job compresses its archives or writes to a repository that deduplicates (restic): a dump kind
   * may then leave its own compression off (`postgresql`'s `dumpCompression: auto`). @default false
   */
  compressedDownstream?: boolean
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

/** What `UploadRestore.upload` is handed: where the source's folder was restored and where to report. */
export interface UploadRestoreOptions {
  /** The source's folder as restored from a snapshot (`<restore folder>/<source name>`). */
  folder: string
  /** Another target than the config's (e.g. another video library of the same account), by its id. */
  targetId?: number
  signal?: AbortSignal
  log(level: 'info' | 'warn', message: string): void
}

/** What an upload restore did: old id → new id of every item put back, and the items it left out. */
export interface UploadRestoreResult {
  /** What it went into, naming no secret (e.g. `{ libraryId: 1001 }`): written beside the map. */
  target: Record<string, string | number>
  ids: Record<string, string>
  skipped: string[]
}

/**
 * How a kind whose data lives in a service (a video library) goes back: its restored folder is uploaded
 * again, and the service gives each item a new id. The CLI's `restore --to DIR --into-library` calls it
 * for every source of the job that has it, without naming a kind. A failure throws an error carrying
 * `partial` (an `UploadRestoreResult` of what was put back before it), so the map is never lost.
 */
export interface UploadRestore<C extends SourceConfigBase = SourceConfigBase> {
  upload(config: C, options: UploadRestoreOptions): Promise<UploadRestoreResult>
}

/** What a restore drill hands a kind's check (`SourceDrill`). */
export interface DrillCheckOptions<C extends SourceConfigBase = SourceConfigBase> {
  config: C
  /** The source's file entries as restored into the drill's scratch folder: archive name and absolute path. */
  files: { name: string; path: string }[]
  /** What the source recorded at backup time (`Source.recorded`); undefined when the snapshot holds nothing for it. */
  recorded: SourceRecord | undefined
  /** A folder of the drill's scratch space the check may write into (removed with it). */
  scratch: string
  /**
   * Where a database dump is restored to be checked (`jobs[].drill.databaseServer`): a scratch database
   * (`sources/support/scratchDatabase`) created and dropped on the source's own server, or a temporary server.
   */
  databaseServer: 'configured' | 'temporary'
  /** Lines for the job's log (what was created, dropped, started). */
  log(level: 'info' | 'warn', message: string): void
  signal: AbortSignal
}

/** What a kind's drill check found: what it checked, in words, and every difference (none: it passed). */
export interface DrillCheck {
  checked: string
  differences: string[]
}

/**
 * How a restore drill proves a kind's dump restores (SQLite: the restored file passes `PRAGMA
 * integrity_check` and holds the tables and row counts recorded at dump time). It never touches the
 * source's own target: it works on the restored files of the drill's scratch folder.
 */
export interface SourceDrill<C extends SourceConfigBase = SourceConfigBase> {
  check(options: DrillCheckOptions<C>): Promise<DrillCheck>
  /**
   * Optional, a database kind: the restored dump's tables, read without writing (SQLite: the restored file
   * opened read-only in a child process; PostgreSQL: the dump restored into a scratch database, as its
   * check does), for a job-level check of the documents (`restore/drill/cmsCheck`). The caller must
   * `close` what it gets.
   */
  readTables?(options: DrillTablesOptions<C>): Promise<RestoredTables>
  /** Optional, a library kind: the ids the restored source holds (a video library: every GUID its list names). */
  restoredIds?(options: DrillReadOptions<C>): Promise<Set<string>>
}

/** What a job-level check hands a kind's reader (`SourceDrill.readTables`, `restoredIds`). */
export type DrillReadOptions<C extends SourceConfigBase = SourceConfigBase> = Pick<DrillCheckOptions<C>, 'config' | 'files' | 'signal'>

/** What a job-level check hands a database kind's reader (`SourceDrill.readTables`): where it may restore a dump to, too. */
export type DrillTablesOptions<C extends SourceConfigBase = SourceConfigBase> = Pick<
  DrillCheckOptions<C>,
  'config' | 'files' | 'signal' | 'scratch' | 'databaseServer' | 'log'
>

/** A restored database's tables (`SourceDrill.readTables`). */
export interface RestoredTables {
  /** Every table's name and its column names. */
  tables: Record<string, string[]>
  /** The given columns of every row of `table` (values as the database gives them: text, number or null). */
  rows(table: string, columns: string[], signal: AbortSignal): Promise<Record<string, unknown>[]>
  /** Frees what reading needed (a scratch database dropped, a temporary server stopped); never cancelled, idempotent. */
  close(): Promise<void>
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
  /** Present for a kind restored by uploading its folder to a service (`UploadRestore`). */
  uploadRestore?: UploadRestore<C>
  /** Present for a kind that records something at backup (`Source.recorded`): how a drill checks it. */
  drill?: SourceDrill<C>
  create(config: C, context: SourceContext): Source
  /**
   * The bytes a run of this source will read, counted before (and while) it runs, for a first run's
   * progress percentage and ETA. Optional: a source that cannot know (a dump) leaves it out, and a job
   * with such a source shows no total. Must stop (throwing the abort reason) when `signal` aborts.
   */
  countTotals?(config: C, signal: AbortSignal): Promise<number>
}
