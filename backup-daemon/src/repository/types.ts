/**
 * @module repository/types
 * The snapshot repository layer (restic's `internal/repository` is the model): one folder owns what a
 * snapshot is and where it lives. The rest of the daemon (engine, tasks, server, CLI) sees snapshots only
 * through these interfaces, mostly through the job-level facade `JobRepository` (`jobRepository.ts`).
 *
 * - A `SnapshotRepository` is one job's snapshots in one storage entry of the job: it lists committed
 *   snapshots (never a half-written one), removes what unfinished runs left, and forgets snapshots.
 * - A `StoredSnapshot` is one listed snapshot: it can be downloaded, read as tar bytes and verified.
 * - Writing is per *kind* (`RepositoryKind`), not per repository: every archive repository of a job takes
 *   the same archive stream at once, while another kind (restic repositories, issue 27) backs up from the
 *   sources itself. Sources are single-use, so a kind gets a factory.
 *
 * Layers: this folder sits above `storages/`, `sources/`, `archive/` (byte streams only), `config/` and
 * `runs/`, and below `engine/`, `tasks/`, `server/` and `cli/`. The archive kind is `archives/` (layout,
 * manifest, catalog, write and commit, read, verify, download over a `Storage`); a new kind is a sibling
 * folder providing `SnapshotRepository` and `RepositoryKind`, wired in `jobRepository.ts`.
 */
import type { Readable } from 'node:stream'
import type { AgeKeys } from '../archive/ageStream.js'
import type { ExtractOptions, ExtractResult } from '../restore/extractTo.js'
import type { OpensslCipher } from '../config/opensslCiphers.js'
import type { JobConfig } from '../config/types.js'
import type { LogLevel } from '../logs/formatLine.js'
import type { RunPhase } from '../runs/progress.js'
import type { Source } from '../sources/types.js'
import type { SnapshotView } from './SnapshotView.js'

export type { SnapshotView }

/** A job's keys for reading its encrypted snapshots (`archiveKeys(job)`); empty for a job without encryption. */
export interface SnapshotKeys {
  /** Keys for an age-encrypted snapshot (the job's passphrase, or identities for recipients). */
  keys?: AgeKeys
  /** Password and cipher for an openssl-encrypted snapshot (the job's `encryption`). */
  openssl?: { password: string; cipher?: OpensslCipher }
}

/** How a snapshot is read: its keys, a cancel (checked per chunk), and a counter of the bytes read from the storage. */
export interface ReadOptions extends SnapshotKeys {
  signal?: AbortSignal
  /** Called with every chunk's size as it is read from the storage (a task's progress). */
  onBytes?(bytes: number): void
  /**
   * Only these sources are wanted (a database restore): a kind that stores each source apart (restic) reads
   * just theirs; one tar of everything is read as it is, and its reader may stop once it has them.
   */
  sources?: readonly string[]
}

/** What `StoredSnapshot.verify` found. */
export interface VerifyResult {
  ok: boolean
  /** One line per problem, naming the part. */
  problems: string[]
  partsChecked: number
  bytes: number
  /** Entries read (snapshots without a checksum to compare only). */
  entries?: number
  /** The whole snapshot's sha256 that every byte was checked against; absent when there was none to compare. */
  sha256?: string
  /** What was checked, in words, for a kind that checks otherwise than by a manifest's sha256 (restic: its blobs' hashes). */
  checkedBy?: string
}

/** A file the repository itself lists for a snapshot (restic's listing of a folder source's snapshot). */
export interface ListedFile {
  /** As named in the snapshot's tar (`<source name>/…`). */
  name: string
  size: number
  /** The listing could not carry the name byte for byte (U+FFFD for each byte that is not UTF-8). */
  lossy: boolean
}

/** How a download is answered: bytes from the daemon, or a redirect to a signed storage URL. */
export type SnapshotDownload =
  | {
      kind: 'stream'
      filename: string
      size: number
      contentType: string
      /** Hex sha256 the bytes must have (the manifest's): the stream `open` gives fails at its end when they do not. */
      sha256?: string
      open(): Promise<Readable>
    }
  | { kind: 'redirect'; url: string }

/** One committed snapshot in one repository, as listed (never a half-written one). */
export interface StoredSnapshot {
  /** The spec's Snapshot item. */
  readonly view: SnapshotView
  /** Bytes a full read costs (the total of a task's progress). */
  readonly size: number
  /**
   * The snapshot (`filename` its name) or one of its part files, served as the API's download; undefined
   * when `filename` is neither. Throws `SnapshotNotFoundError`, `SnapshotDamagedError`, `FullDownloadUnsupportedError`.
   */
  download(filename: string): Promise<SnapshotDownload | undefined>
  /** The decrypted, decompressed tar bytes (a zip is re-packed as tar). */
  openTar(options: ReadOptions): Promise<Readable>
  /** Checks the stored bytes (checksums, or a read to the end when there are none). A cancel is checked per chunk. */
  verify(options: ReadOptions): Promise<VerifyResult>
  /** A read error worded for this snapshot (e.g. a wrong openssl password shows only as garbage). */
  explainReadError(err: Error): Error
  /**
   * Files whose tar entries carry no record (`tar/snapshotRecord.ts`) but which the repository lists itself:
   * restic's folder sources (restic reads those folders, and its listing of each snapshot is what it
   * stored). A drill compares their restore with this. Absent for a kind whose tar records every file.
   */
  listedFiles?(options: ReadOptions): Promise<ListedFile[]>
  /**
   * A restore of files faster than unpacking `openTar`, planned from the snapshot's own listing (restic's
   * restorer, `repository/restic/resticRestore.ts`); `because` when this snapshot must take the tar path.
   * Absent for a kind that has none.
   */
  directRestore?(options: ReadOptions): Promise<DirectRestore | { because: string }>
}

/** Files put into a folder by the repository itself: everything `openTar`'s entries would have unpacked there. */
export interface DirectRestore {
  /** What restores, in words for the task's log (`restic restore`). */
  readonly by: string
  /**
   * Restores into `dir` (empty; `/proc/self/fd/<fd>` when held) and says what it restored. Throws `CopyReadError` when the copy fails.
   * `hooks`: what the tar path would have told of the entries it unpacks itself (a dump's record, for a drill; each entry's name).
   */
  into(dir: string, hooks?: DirectRestoreHooks): Promise<ExtractResult>
}

/** A direct restore's entries unpacked through the tar path (a restic run's dump sources), told as `extractTo` tells them. */
export type DirectRestoreHooks = Pick<ExtractOptions, 'onRecord' | 'onEntry'>

/** The copy's bytes could not be read (a pack missing, a blob whose hash differs): another copy may restore. */
export class CopyReadError extends Error {
  override readonly name = 'CopyReadError'
}

/** One job's snapshots in one storage entry of the job. */
export interface SnapshotRepository {
  /** The storage entry's name and type. */
  readonly name: string
  readonly type: string
  /** Committed snapshots, newest first. */
  list(): Promise<StoredSnapshot[]>
  /** The listed snapshot `name` (the newest when undefined), ready to be read; undefined when not listed. */
  find(name?: string): Promise<StoredSnapshot | undefined>
  /** Removes what unfinished runs left; returns how many objects. Only while no run of the job writes. */
  removeLeftovers(): Promise<number>
  /** Deletes listed snapshots (their commit point first); returns the names deleted. */
  forget(names: string[]): Promise<string[]>
}

/** What a run's writer is told of its progress (the engine's `RunTracker` is one). */
export interface WriteProgress {
  phase(phase: RunPhase): void
  /**
   * The counter of the bytes written to `storages` (names of repositories written together): the writer adds
   * what they got, as they report it (the archive's bytes; restic's `data_added`).
   */
  writtenTo(storages: readonly string[]): { bytesWritten: number }
  /**
   * A writer that reads a source's folder itself (restic backs the path up) reports, as `reader` (its
   * repository), the files and bytes of `source` it read since its last report: the run's bytes read (its
   * progress' percentage, the next run's estimate), counted once per source whoever else read it.
   */
  folderRead(source: string, reader: string, files: number, bytes: number): void
}

/** One backup run, as a kind's writer gets it. */
export interface WriteRun {
  job: JobConfig
  /** The job's sources, new each call (a source is read once). */
  createSources(): Source[]
  createdAt: Date
  signal: AbortSignal
  log(level: LogLevel, message: string): void
  progress: WriteProgress
  /** gzip level when the job sets none. */
  level?: number
}

/** What a run committed, for its history record and notifications. */
export interface WrittenSnapshot {
  name: string
  /** Bytes written (once, not per repository). */
  size: number
  /** Hex sha256 of the whole snapshot as written; absent for a kind without one checksum of the whole (restic). */
  sha256?: string
  partsCount: number
  /** What else names the run where it is stored, e.g. the restic commit snapshot's id per repository. */
  references?: { label: string; id: string }[]
}

/** The repositories of one kind in one job, and how a run is written into all of them. */
export interface RepositoryKind {
  readonly repositories: readonly SnapshotRepository[]
  /** Writes and commits one snapshot into every repository of the kind; on failure or abort nothing of it is left listed. */
  write(run: WriteRun): Promise<WrittenSnapshot>
  /** How many times `write` reads the sources (restic: once per repository). @default 1 */
  readonly sourceReads?: number
}
