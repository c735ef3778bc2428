/**
 * @module repository/restic/resticSession
 * One restic repository as the daemon uses it: the target built from a `type: restic` storage entry (the
 * cache under the daemon's data folder), the daemon's id (tags tell its snapshots from another daemon's on
 * the same repository), initialisation on first use, and commands that wait for a lock held by someone
 * else (`--retry-lock` from restic 0.16; before that the daemon retries itself).
 */
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type { ResticStorageConfig } from '../../storages/restic/index.js'
import { restic, ResticError, resticStream, type ResticRun, type ResticTarget } from './resticProcess.js'
import { resticVersion, supports, type ResticVersion } from './resticVersion.js'

/** How long a command waits for another holder's lock (restic's `--retry-lock` and the daemon's own retries). */
const lockWaitMs = 5 * 60_000
const lockRetryMs = 5_000

export function targetOf(config: ResticStorageConfig, dataDir: string): ResticTarget {
  return {
    repository: config.repository,
    ...(config.password !== undefined && { password: config.password }),
    ...(config.passwordFile !== undefined && { passwordFile: config.passwordFile }),
    ...(config.binary !== undefined && { binary: config.binary }),
    env: config.env,
    extraParams: config.extraParams,
    cacheDir: join(dataDir, 'restic-cache'),
    ...(config.compression !== undefined && { compression: config.compression }),
  }
}

const ids = new Map<string, Promise<string>>()

/** This daemon's id, kept in `<dataDir>/daemon-id` (created on first use): its snapshots carry `daemon=<id>`. */
export function daemonId(dataDir: string): Promise<string> {
  let id = ids.get(dataDir)
  if (!id) {
    id = readOrCreateId(join(dataDir, 'daemon-id'))
    ids.set(dataDir, id)
    id.catch(() => ids.delete(dataDir))
  }
  return id
}

async function readOrCreateId(file: string): Promise<string> {
  try {
    const known = (await readFile(file, 'utf8')).trim()
    if (/^[a-z0-9]{8,64}$/.test(known)) return known
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const id = randomBytes(8).toString('hex')
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 })
  // `wx`: two processes starting on one data folder keep the first id written. Owner only, as state.json.
  await writeFile(file, `${id}\n`, { flag: 'wx', mode: 0o600 }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err
  })
  return (await readFile(file, 'utf8')).trim()
}

export const isLocked = (err: unknown) => err instanceof ResticError && /already locked|unable to create lock/i.test(err.stderr)
/** restic's answer when there is no repository at the location (yet). */
export const isMissing = (err: unknown) =>
  err instanceof ResticError &&
  /unable to open config file/i.test(err.stderr) &&
  // restic says the same for a repository it cannot reach (`dial tcp …: connection refused`): only a config that
  // is not there means "no repository yet"; anything else is a storage that is down, never an empty one.
  /no such file or directory|does not exist|not found|\b404\b|NoSuchKey/i.test(err.stderr)

/** restic's answer to a snapshot id it does not find (`--parent`, `dump`): `no matching ID found for prefix "…"`. */
export const isMissingSnapshot = (err: unknown) => /no matching ID found/i.test((err as Error | undefined)?.message ?? '')

const initialised = new Map<string, Promise<void>>()

/** A command on the repository succeeded: no `cat config` needed before writing (each restic command costs its key derivation, ~0.3 s of CPU). */
export function markRepositoryExists(target: ResticTarget): void {
  if (!initialised.has(target.repository)) initialised.set(target.repository, Promise.resolve())
}

/** Creates the repository (format 2: compressed) unless `cat config` finds one; once per repository and process. */
export function ensureRepository(target: ResticTarget, signal?: AbortSignal): Promise<void> {
  let done = initialised.get(target.repository)
  if (!done) {
    done = initialise(target, signal)
    initialised.set(target.repository, done)
    done.catch(() => initialised.delete(target.repository))
  }
  return done
}

async function initialise(target: ResticTarget, signal?: AbortSignal): Promise<void> {
  const run = signal ? { signal } : {}
  try {
    await restic(target, ['cat', 'config', '--no-lock'], run)
    return
  } catch (err) {
    if (!isMissing(err)) throw err
  }
  await restic(target, ['init', '--repository-version', '2'], run).catch((err: unknown) => {
    // Another daemon created it in between.
    if (!(err instanceof ResticError && /already exists|already initialized/i.test(err.stderr))) throw err
  })
}

/** A command that may start again: stdin is made anew per attempt, and `retryIf` says whether it can be. */
export interface LockedRun extends Omit<ResticRun, 'stdin'> {
  stdin?: () => Readable
  retryIf?: () => boolean
}

/**
 * `restic <args>`'s output as a stream that, like `resticLocked`, waits up to 5 minutes for a lock another
 * process holds (a `check` of a verify or drill elsewhere locks the repository exclusively): retried while
 * restic has printed nothing yet. A read (`dump`) otherwise failed at once beside a running check.
 */
export async function* resticLockedStream(target: ResticTarget, args: string[], run: ResticRun = {}): AsyncGenerator<Buffer> {
  const until = Date.now() + lockWaitMs
  for (;;) {
    const stream = resticStream(target, args, run)
    let started = false
    try {
      for await (const chunk of stream) {
        started = true
        yield chunk as Buffer
      }
      return
    } catch (err) {
      if (started || !isLocked(err) || Date.now() > until) throw err
    } finally {
      stream.destroy()
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, lockRetryMs)
      run.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(run.signal!.reason as Error)), { once: true })
    })
  }
}

/**
 * Runs `restic <args>`, waiting up to 5 minutes for a lock another process holds: with `--retry-lock 5m`
 * where restic has it (0.16), else by retrying every 5 s.
 */
export async function resticLocked(target: ResticTarget, args: string[], run: LockedRun = {}, version?: ResticVersion): Promise<string> {
  const known = version ?? (await resticVersion(target.binary))
  const { stdin, retryIf, ...rest } = run
  const attempt = () => restic(target, args, { ...rest, ...(stdin && { stdin: stdin() }) })
  if (supports(known, 'retryLock')) return restic(target, [...args, '--retry-lock', '5m'], { ...rest, ...(stdin && { stdin: stdin() }) })
  const until = Date.now() + lockWaitMs
  for (;;) {
    try {
      return await attempt()
    } catch (err) {
      if (!isLocked(err) || Date.now() > until || (retryIf && !retryIf())) throw err
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, lockRetryMs)
        run.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(run.signal!.reason as Error)), { once: true })
      })
    }
  }
}
