/**
 * @module storages/sftp/sftpStorage
 * The `sftp` storage type's config schema (the original service's keys) and factory: retries with
 * timeouts around the calls that can be repeated, ssh2 loaded on first use.
 */
import { homedir, userInfo } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { lazyStorage } from '../remote/lazyStorage.js'
import { withRetries } from '../remote/withRetries.js'
import type { StorageContext, StorageFactory } from '../types.js'
import { isSftpNotExist, isSftpRetryable } from './sftpErrors.js'

/** `~` and `~/...` as the shell expands them (the original service does the same for key paths). */
export function expandHome(path: string): string {
  return path === '~' ? homedir() : path.startsWith('~/') ? join(homedir(), path.slice(2)) : path
}

/** The user the daemon runs as (`$USER` when the passwd database has no entry, as in some containers). */
function osUser(): string {
  try {
    return userInfo().username
  } catch {
    return process.env.USER ?? 'root'
  }
}

export const sftpConfigSchema = z
  .strictObject({
    type: z.literal('sftp'),
    name: z.string().min(1),
    host: z.string().min(1),
    port: z.int().min(1).max(65_535).default(22),
    /** The login name; the user the daemon runs as when unset. */
    username: z
      .string()
      .min(1)
      .default(() => osUser()),
    password: z.string().min(1).optional(),
    /** Path of a private key file (OpenSSH or PEM format; `~` expanded). */
    privateKey: z.string().min(1).transform(expandHome).optional(),
    /** Decrypts an encrypted `privateKey`. */
    passphrase: z.string().min(1).optional(),
    /** The `known_hosts` file the server's key is checked against (`~` expanded). */
    knownHosts: z
      .string()
      .min(1)
      .transform(expandHome)
      .default(() => join(homedir(), '.ssh', 'known_hosts')),
    /** `false` accepts an unknown or changed host key, with a warning in the log. */
    strictHostKey: z.boolean().default(true),
    /** The folder on the server (created when missing); relative paths start at the login folder. */
    path: z.string().min(1).default('.'),
    /**
     * Seconds the server may answer nothing (no SFTP request, no SSH keepalive, sent every quarter of
     * it) before the connection counts as dead and the calls waiting on it fail, naming the storage.
     */
    timeout: z.number().positive().max(3600).default(60),
  })
  .refine((c) => c.password !== undefined || c.privateKey !== undefined, { message: 'set password or privateKey (or both)', path: ['password'] })
  .refine((c) => c.passphrase === undefined || c.privateKey !== undefined, { message: 'passphrase needs privateKey', path: ['passphrase'] })

/** One `type: sftp` entry after parsing (defaults applied, `~` expanded). */
export type SftpStorageConfig = z.output<typeof sftpConfigSchema>

/** Without a job log to write to, warnings go to stderr (journald under systemd). */
const stderrContext: StorageContext = {
  log: (level, message) => {
    if (level === 'warn') process.stderr.write(`warning: ${message}\n`)
  },
}

export const sftpStorage = {
  type: 'sftp',
  configSchema: sftpConfigSchema,
  secretKeys: ['password', 'passphrase'],
  pathKeys: ['privateKey', 'knownHosts'],
  create: (config, context = stderrContext) => {
    const info = { type: 'sftp', name: config.name, canStream: true, downloadUrl: false, isNotExist: isSftpNotExist, isRetryable: isSftpRetryable }
    return withRetries(
      lazyStorage(info, async () => {
        const [{ SftpConnection }, { SftpStorage }] = await Promise.all([import('./SftpConnection.js'), import('./SftpStorage.js')])
        const connection = new SftpConnection({
          name: config.name,
          host: config.host,
          port: config.port,
          username: config.username,
          password: config.password,
          privateKey: config.privateKey,
          passphrase: config.passphrase,
          knownHosts: config.knownHosts,
          strictHostKey: config.strictHostKey,
          timeoutMs: config.timeout * 1000,
          log: (level, message) => context.log(level, message),
        })
        return new SftpStorage(config.name, connection, config.path)
      }),
    )
  },
} satisfies StorageFactory<SftpStorageConfig>
