/**
 * @module storages/restic
 * The `restic` storage entry: a restic repository (issue 27). It is not an object store (`Storage`): the
 * repository layer backs the job's sources up into it with the `restic` binary
 * (`repository/restic/`), so the entry declares the repository kind instead of a `create`. The keys are
 * what restic itself takes: any repository string, the password (or a file holding it), extra flags, and
 * the backend variables restic reads from its environment (`AWS_ACCESS_KEY_ID` and the like).
 */
import { z } from 'zod'
import type { StorageEntryType } from '../types.js'

const resticStorageSchema = z.strictObject({
  type: z.literal('restic'),
  name: z.string().min(1),
  /** Any restic repository string: a path, `sftp:user@host:/srv/restic`, `s3:https://host/bucket`, `rest:`, `rclone:`. */
  repository: z.string().min(1),
  /** The repository password (a secret: `env:RESTIC_PASSWORD` keeps it out of the file). Or `passwordFile`. */
  password: z.string().min(1).optional(),
  /** A file holding the repository password. */
  passwordFile: z.string().min(1).optional(),
  /** restic flags added to every command (`--cacert`, `-o sftp.command=…`, `--limit-upload`). */
  extraParams: z.array(z.string()).default([]),
  /** Backend variables restic reads (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `B2_ACCOUNT_KEY`…); secrets, `env:` works. */
  env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name'), z.string()).default({}),
  /** The restic binary. @default "restic" on PATH */
  binary: z.string().min(1).optional(),
  /**
   * restic's `--compression` for every backup into it: `off` for media (video, JPEG: nothing to gain, and a
   * first run of 10 GiB of it took 61.7 s with `auto` against 36.8 s with `off`, the repository the same size),
   * `max` for text. @default restic's own (`auto`)
   */
  compression: z.enum(['auto', 'off', 'max']).optional(),
})

/** One `type: restic` storage entry after parsing. */
export type ResticStorageConfig = z.output<typeof resticStorageSchema>

export const resticStorage: StorageEntryType<ResticStorageConfig> = {
  type: 'restic',
  repository: 'restic',
  configSchema: resticStorageSchema,
  secretKeys: ['password', 'env'],
  pathKeys: ['passwordFile'],
  resolvePaths: (config, abs) => ({ ...config, repository: resolveRepository(config.repository, abs) }),
  // A folder repository (restic creates it on `init`, the first run); a backend's location is not a folder here.
  writesFolder: (config) => (backends.test(config.repository) ? undefined : { key: 'repository', path: config.repository.replace(/^local:/, '') }),
}

/** restic's backend prefixes (`restic/internal/location`): any other repository string is a folder. */
const backends = /^(sftp|s3|rest|rclone|b2|azure|gs|swift):/

/**
 * A folder repository (`./repo`, `local:./repo`) made absolute like every path key, so it does not
 * depend on the daemon's working folder; a backend's location (`sftp:host:/srv`, `s3:…`) is left as is.
 */
export function resolveRepository(repository: string, abs: (path: string) => string): string {
  if (backends.test(repository)) return repository
  if (repository.startsWith('local:')) return `local:${abs(repository.slice('local:'.length))}`
  return abs(repository)
}
