/**
 * @module start/daemonConfig
 * The backup daemon's configuration for the dev-app: one job, `cms`, backing up the CMS's database (a
 * consistent SQLite copy, a mongodump-compatible archive when the CMS runs on MongoDB, a pg_dump when it
 * runs on PostgreSQL) and the storage host's files, on a schedule, to local disk and to the storage host
 * itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { stringify } from 'yaml'
import { databaseKind } from '../database/databaseKind.js'
import { postgresSourceFromUri } from './postgresSource.js'

export interface DaemonConfigInput {
  dataDir: string
  port: number
  /** Listening address (IPv4, or IPv6 without brackets). */
  bindAddress: string
  username: string
  passwordHash: string
  secret: string
  /** `file:…` SQLite URL, `mongodb://…` or `postgres://…` URI of the CMS database. */
  databaseUri: string
  /** Folder holding the storage zone's files (the emulator's), or undefined with a real host. */
  mediaFolder?: string
  host: { endpoint: string; zoneName: string; accessKey: string }
}

/** The job's `database` source: the same database the CMS's adapter uses (database/databaseKind.ts). */
function databaseSource(uri: string): Record<string, unknown> {
  switch (databaseKind(uri)) {
    case 'mongodb':
      return { type: 'mongodb', name: 'database', uri }
    // In parts, the password in its own key: pg_dump gets it in PGPASSWORD, the daemon's UI hides it.
    case 'postgres':
      return { ...postgresSourceFromUri(uri, 'database') }
    case 'sqlite':
      return { type: 'sqlite', name: 'database', path: uri.replace(/^file:/, '') }
  }
}

export function writeDaemonConfig(input: DaemonConfigInput): string {
  const daemonDir = path.join(input.dataDir, 'daemon')
  mkdirSync(daemonDir, { recursive: true })
  const config = {
    dataDir: daemonDir,
    server: {
      address: `${input.bindAddress.includes(':') ? `[${input.bindAddress}]` : input.bindAddress}:${input.port}`,
      secret: input.secret,
      auth: {
        enabled: true,
        username: input.username,
        password: input.passwordHash,
        tokenExpiration: 60,
      },
      permissions: { allowManualRun: true, allowBackupDownload: true, showConfig: true },
    },
    logs: { system: true, perJob: true },
    jobs: [
      {
        name: 'cms',
        schedule: '0 */6 * * *',
        active: true,
        compression: 'tar.gz',
        sources: [
          databaseSource(input.databaseUri),
          // The zone's own backups (under the job's folder) are not media.
          ...(input.mediaFolder ? [{ type: 'local', name: 'media', path: input.mediaFolder, exclude: ['cms/**'] }] : []),
        ],
        storages: [
          { type: 'local', name: 'disk', path: path.join(input.dataDir, 'backups') },
          { type: 'host', name: 'storage-host', ...input.host },
        ],
        retention: { last: 10 },
      },
    ],
  }
  const file = path.join(daemonDir, 'backup-daemon.yaml')
  writeFileSync(file, `# Written by the dev-app on every start; edit src/start/daemonConfig.ts instead.\n${stringify(config)}`, { mode: 0o600 })
  return file
}
