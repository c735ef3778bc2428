/**
 * @module storages/types
 * The storage backend contract. The engine only sees this interface; which backend it talks to is
 * decided by `storages/all.ts` from the config's `type`. Objects are addressed by keys: relative,
 * `/`-separated paths (no `..`, no leading `/`), that the backend maps to files or object names.
 *
 * Writes are two-phase: `write` streams the bytes under a temporary name that no listing shows as
 * committed; `commit` gives them their final key. A run that dies between the two leaves only
 * `incomplete` objects, which the engine removes on its next run or start.
 */
import type { Readable } from 'node:stream'
import type { z } from 'zod'

export interface StoredObject {
  key: string
  size: number
  modified: Date
  /** A temporary object of an unfinished write (never part of a snapshot). */
  incomplete: boolean
}

export interface PendingObject {
  /** Bytes written. */
  readonly size: number
  /** Moves the object to `key` (replacing nothing: keys are unique per run). Idempotent on success. */
  commit(key: string): Promise<void>
  /** Removes the temporary object. Safe to call after a failed write. */
  discard(): Promise<void>
}

export interface Storage {
  readonly type: string
  readonly name: string
  /** Whether `open` can stream objects through the daemon (a split set's full download needs it). */
  readonly canStream: boolean
  /**
   * Streams `body` into a temporary object in the folder `dir` and resolves once every byte is stored.
   * Respects backpressure (memory must not grow with the data) and `signal`: on abort it stops,
   * removes what it wrote and rejects with the abort reason.
   */
  write(dir: string, body: Readable, signal: AbortSignal): Promise<PendingObject>
  /** Every object under `prefix` (recursively), committed or incomplete, in no particular order. */
  list(prefix: string): Promise<StoredObject[]>
  /** Opens a committed object for reading. Rejects with an error for which `isNotExist` is true when missing. */
  open(key: string): Promise<Readable>
  /** Removes an object; removing a missing one is not an error. Empty folders left behind are removed too. */
  delete(key: string): Promise<void>
  /**
   * When the backend prefers clients to fetch objects from it directly, a URL valid for a short time;
   * `undefined` to have the daemon stream the bytes.
   */
  downloadUrl?(key: string): Promise<string | undefined>
  /** True when `err` means "no such object" (the engine never parses provider errors itself). */
  isNotExist(err: unknown): boolean
  /**
   * True when the call that failed with `err` may succeed if repeated as is: the connection dropped,
   * the service is busy (5xx, 429), a socket timed out. Never for a missing object, refused
   * credentials, an unknown host key, a bad key or the caller's abort. The retry decorator asks this
   * instead of parsing provider errors itself. Must be synchronous and cheap.
   */
  isRetryable(err: unknown): boolean
}

/** What a storage may tell the job's log (a warning about a relaxed host-key check, say). */
export interface StorageContext {
  log(level: 'info' | 'warn', message: string): void
}

/** What every storage entry has; each type's full config is its factory's schema output. */
export interface StorageConfigBase {
  type: string
  /** Unique within the job. */
  name: string
}

/**
 * What the config knows of one storage type: the schema of its entry, its secret and path keys. An
 * object store adds how to build it (`StorageFactory`); an entry that is a repository of another kind
 * (a restic repository, `storages/restic`) names that kind in `repository` instead, and the repository
 * layer opens it (`repository/jobRepository.ts`).
 */
export interface StorageEntryType<C extends StorageConfigBase = StorageConfigBase> {
  type: C['type']
  /** Strict zod object for one `jobs[].storages[]` entry with `type` as a literal; its output is `C`. */
  configSchema: z.ZodObject
  /** Keys of the config entry that hold secrets (redacted in `GET /jobs/{name}/config`). */
  secretKeys: string[]
  /** Keys that are filesystem paths, resolved against the config file's folder. */
  pathKeys?: string[]
  /** Resolves keys that are paths only sometimes (a restic `repository` may be a folder or `sftp:…`); `abs` resolves one path. */
  resolvePaths?(config: C, abs: (path: string) => string): C
  /** The folder on this machine the entry writes into and the key naming it, when it has one (`check-config` checks the service user can create it). */
  writesFolder?(config: C): { key: string; path: string } | undefined
  /** The repository kind of an entry that is not an object store (e.g. `restic`); absent for a `StorageFactory`. */
  repository?: string
  /** Builds the storage (object stores only); `context` is where it may log. */
  create?(config: C, context?: StorageContext): Storage
}

/**
 * One storage type: the schema of its config entry and how to build it. Registered in `storages/all.ts`.
 * The config type is the schema's output (`z.output<typeof schema>`, defaults applied by the schema) and
 * `config/types.ts` derives its union from the registry, so a new type is one folder plus one line in
 * `storages/all.ts`.
 */
export interface StorageFactory<C extends StorageConfigBase = StorageConfigBase> extends StorageEntryType<C> {
  /** Builds the storage; `context` is where it may log (absent: warnings go to the process's stderr). */
  create(config: C, context?: StorageContext): Storage
}
