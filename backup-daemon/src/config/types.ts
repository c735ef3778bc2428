/**
 * @module config/types
 * The daemon's configuration after parsing and defaults: the one shape every other concern reads.
 * The YAML keys mirror the original service's `snapr.yaml`; `config/schema.ts` validates a file into
 * this shape (with line and column on every error) and must stay assignable to it.
 */
import type { SourceConfig } from '../sources/all.js'
import type { StorageConfig } from '../storages/all.js'
import type { CmsCheckConfig } from './cmsCheckConfig.js'
import type { RestoreConfig } from './restoreConfig.js'
import type { OpensslCipher } from './opensslCiphers.js'

export interface DaemonConfig {
  /** Folder for the state file (`state.json`) and, unless `logs.directory` says otherwise, the logs. @default "./data" next to the config file */
  dataDir: string
  server: ServerConfig
  logs: LogsConfig
  logLimits: LogLimits
  /** Ended runs kept per job in `<dataDir>/history/`. Absent means the default. @default { limit: 100 } */
  history?: { limit: number }
  jobs: JobConfig[]
  /** Where the API may restore to; absent (hand-built configs) means nowhere. */
  restore?: RestoreConfig
}

export interface ServerConfig {
  /** false: scheduler only, no HTTP listener (the original's `server.enabled`). The loader always sets it; absent means true. */
  enabled?: boolean
  /** The web UI's default language (the original's `server.defaultLanguage`). The loader always sets it; absent means "en". */
  defaultLanguage?: 'en' | 'ru'
  /** `host:port` to listen on. @default "127.0.0.1:8080" */
  address: string
  /** Serve without login beyond loopback (the loader refuses it otherwise). @default false */
  allowUnauthenticated?: boolean
  /** HS256 key for session JWTs; empty means a random key per process (a restart logs everybody out). */
  secret: string
  auth: AuthConfig
  permissions: Permissions
  ui: { enabled: boolean }
  /** Prometheus metrics at `GET /metrics`; absent means enabled. @default { enabled: true } */
  metrics?: { enabled: boolean }
}

export interface AuthConfig {
  enabled: boolean
  username: string
  /** An scrypt hash made by `backup-daemon hash-password` (`scrypt$...`). */
  password: string
  /** Session lifetime in minutes. @default 30 */
  tokenExpiration: number
  cookies: CookieOptions
  /** Origins besides the daemon's own allowed to send state-changing requests (CSRF rule). @default [] */
  allowedOrigins: string[]
}

export interface CookieOptions {
  secure: boolean
  sameSite: 'Strict' | 'Lax' | 'None'
  domain?: string
}

export interface Permissions {
  allowManualRun: boolean
  allowBackupDownload: boolean
  showConfig: boolean
  /** Restore and verify from the API and UI; absent means false. */
  allowRestore?: boolean
}

export interface LogsConfig {
  system: boolean
  perJob: boolean
  /** Where log files are kept so a restart keeps them (the original's `logs.path`). @default "<dataDir>/logs" */
  directory: string
  // The rotation keys are always set by the loader; hand-built configs (tests) may leave them out,
  // which means the defaults.
  /** Rotate a log file once it reaches this many MiB; 0 = never by size. @default 100 */
  maxSizeMB?: number
  /** Rotated files kept per log; 0 = keep all. @default 7 */
  maxBackups?: number
  /** Rotated files older than this many days are deleted; 0 = never by age. @default 30 */
  maxAgeDays?: number
  /** gzip rotated files. @default true */
  compress?: boolean
}

/** Lines kept per log in memory, and the default `tail` of the log endpoints. @default 10000 each (the original's) */
export interface LogLimits {
  jobLogs: number
  systemLogs: number
}

export type Compression = 'tar' | 'tar.gz' | 'tar.zst' | 'tar.xz' | 'zip'

export interface JobConfig {
  name: string
  /** Cron expression (5 or 6 fields, croner syntax). */
  schedule: string
  /** IANA time zone for the schedule. @default the machine's zone */
  timezone?: string
  active: boolean
  /** In YAML a string (aliases `gz`, `gzip`, `zst`, `zstd`, `xz`) or `{ type, level }`; always the type here. @default "tar" (the original's) */
  compression: Compression
  /** gzip 1-9 (@default 6), zstd 1-19 (@default 3) or xz 0-9 (@default 6); from `compression.level`. */
  compressionLevel?: number
  /** Encryption of the compressed archive (age, or the original's `openssl enc`), before it is split. */
  encryption?: EncryptionConfig
  sources: SourceConfig[]
  storages: StorageConfig[]
  retention?: RetentionConfig
  /** Split the archive into parts of this many bytes (YAML: a number or `1GB`-style string). */
  split?: { chunkSize: number }
  /** The storage (by `name`) the listing and downloads prefer. */
  defaultStorage?: string
  /** Shell snippet (`/bin/sh -c`) run before the sources are read; a failure fails the run. */
  beforeScript?: string
  /** Shell snippet run after every run (success, failure or cancel). */
  afterScript?: string
  /** Told about each run's end (YAML: `notify`, or the original's `notifiers`). @default [] */
  notify: NotifyConfig[]
  /**
   * Restore drills: on a cron schedule when `schedule` is set (same syntax and `timezone` as `schedule`), of
   * every storage or `storage` only; database dumps are checked in a scratch database on the source's own
   * server (`configured`) or on a temporary server the drill starts (`temporary`); `cms`: a CMS's documents
   * checked against the restored files and videos (`restore/drill/cmsCheck`).
   */
  drill?: { schedule?: string; storage?: string; databaseServer: 'configured' | 'temporary'; cms?: CmsCheckConfig }
}

export type EncryptionConfig = AgeEncryptionConfig | OpensslEncryptionConfig

/** age encryption: a passphrase (scrypt) or recipients (`age1...`), never both. */
export interface AgeEncryptionConfig {
  type: 'age'
  /** Usually `env:BACKUP_PASSPHRASE` (`password` is accepted as an alias in YAML). */
  passphrase?: string
  recipients?: string[]
}

/** The original's `openssl enc -<cipher> -salt -pbkdf2` encryption (YAML `type` defaults to openssl). */
export interface OpensslEncryptionConfig {
  type: 'openssl'
  /** @default "aes-256-cbc" */
  cipher: OpensslCipher
  password: string
}

/** Which snapshots survive a successful run, per storage (a split set counts as one): the union of all rules. */
export interface RetentionConfig {
  last?: number
  daily?: number
  weekly?: number
  monthly?: number
}

export type NotifyEvent = 'success' | 'failure'

/** Keys every notifier has. `on: []` (the original's `onSuccess: false, onFailure: false`) = off. */
interface NotifyCommon {
  /** A label for logs and the config view (the original's `name`). */
  name?: string
  /** @default ["failure"] */
  on: NotifyEvent[]
  /** Milliseconds. @default 10000 */
  timeout: number
}

export interface WebhookNotifyConfig extends NotifyCommon {
  type: 'webhook'
  url: string
  /** @default "POST" */
  method: 'POST' | 'PUT' | 'PATCH'
  headers: Record<string, string>
}

/** YAML: `smtp: {...}`, or the original's flat `smtpHost`, `smtpPort`, `smtpUser`, `smtpPass`, `useTLS`. */
export interface EmailNotifyConfig extends NotifyCommon {
  type: 'email'
  smtp: { host: string; port: number; secure: boolean; username?: string; password?: string }
  from: string
  to: string | string[]
}

/** Telegram Bot API `sendMessage` with a short run summary. */
export interface TelegramNotifyConfig extends NotifyCommon {
  type: 'telegram'
  botToken: string
  chatId: string
  /** Bot API base URL (tests point it at a local server). @default "https://api.telegram.org" */
  apiBase: string
}

/** healthchecks.io pings: `<url>/start` at a run's start, `<url>` on success, `<url>/fail` on failure. */
export interface HealthchecksNotifyConfig extends NotifyCommon {
  type: 'healthchecks'
  /** The check's ping URL (a secret). `on` defaults to `["success", "failure"]` here. */
  url: string
}

export type NotifyConfig = WebhookNotifyConfig | EmailNotifyConfig | TelegramNotifyConfig | HealthchecksNotifyConfig

/**
 * One source / storage entry of a job: the union of the config types of the registered factories
 * (`sources/all.ts`, `storages/all.ts`), each its schema's output. A new type changes nothing here.
 */
export type { SourceConfig, StorageConfig }
