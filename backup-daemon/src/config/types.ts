/**
 * @module config/types
 * The daemon's configuration after parsing and defaults: the one shape every other concern reads.
 * The YAML keys mirror the original service's `snapr.yaml`; `config/schema.ts` validates a file into
 * this shape (with line and column on every error) and must stay assignable to it.
 */

export interface DaemonConfig {
  /** Folder for the state file (`state.json`) and, unless `logs.directory` says otherwise, the logs. @default "./data" next to the config file */
  dataDir: string
  server: ServerConfig
  logs: LogsConfig
  logLimits: LogLimits
  jobs: JobConfig[]
}

export interface ServerConfig {
  /** `host:port` to listen on. @default "0.0.0.0:8080" */
  address: string
  /** HS256 key for session JWTs; empty means a random key per process (a restart logs everybody out). */
  secret: string
  auth: AuthConfig
  permissions: Permissions
  ui: { enabled: boolean }
}

export interface AuthConfig {
  enabled: boolean
  username: string
  /** An scrypt hash made by `backup-daemon hash-password` (`scrypt$...`). */
  password: string
  /** Session lifetime in minutes. @default 30 */
  tokenExpiration: number
  cookies: CookieOptions
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
}

export interface LogsConfig {
  system: boolean
  perJob: boolean
  /** Where log files are kept so a restart keeps them. @default "<dataDir>/logs" */
  directory: string
}

/** Lines kept per log. */
export interface LogLimits {
  jobLogs: number
  systemLogs: number
}

export type Compression = 'tar' | 'tar.gz'

export interface JobConfig {
  name: string
  /** Cron expression (5 or 6 fields, croner syntax). */
  schedule: string
  /** IANA time zone for the schedule. @default the machine's zone */
  timezone?: string
  active: boolean
  compression: Compression
  sources: SourceConfig[]
  storages: StorageConfig[]
  retention?: { last?: number }
  /** Split the archive into parts of this many bytes. */
  split?: { chunkSize: number }
}

/** A source; `type` selects the implementation in `sources/all.ts`. Issue 5 adds more types. */
export type SourceConfig = LocalSourceConfig

export interface LocalSourceConfig {
  type: 'local'
  /** Unique within the job; the folder name inside the archive. */
  name: string
  path: string
  /** Glob patterns (picomatch) relative to `path`. */
  exclude?: string[]
}

/** A storage; `type` selects the implementation in `storages/all.ts`. Issue 5 adds more types. */
export type StorageConfig = LocalStorageConfig

export interface LocalStorageConfig {
  type: 'local'
  /** Unique within the job. */
  name: string
  path: string
}
