/**
 * @module start/daemonConfig
 * The backup daemon's configuration for the dev-app: one job, `cms`, backing up the CMS's database (a
 * consistent SQLite copy, a mongodump-compatible archive when the CMS runs on MongoDB, a pg_dump when it
 * runs on PostgreSQL), the files of both storage zones (`media`, `documents`) and the videos of both
 * libraries (`videos`, `private-videos`: `host-stream` sources: originals, captions and metadata, mirrored in
 * `<data folder>/daemon/stream-mirror[-private-videos]/` so a run downloads only new or changed videos), on a schedule, to local disk and to the storage host
 * itself: into `private-backups/` of the CMS's zone, a folder its public pull zone refuses (the emulator
 * is started with it blocked; on the real host an Edge Rule does it, or use a zone of its own), because
 * a snapshot holds the database with the users' password hashes (issue 28 #3). A daily restore drill
 * proves the newest snapshot restores, the CMS's documents included (`drillConfig`).
 *
 * `DEV_APP_ALLOW_RESTORE=1` turns on verify and restore from the daemon's UI and API, into
 * `<data folder>/restore/` only (issue 24 #15).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { stringify } from 'yaml'
import { databaseKind } from '../database/databaseKind.js'
import { postgresSourceFromUri } from './postgresSource.js'

/** The zone folder the daemon's snapshots go to; the emulator's pull zone refuses it. */
export const privateBackupsPath = 'private-backups'

/** Whether `DEV_APP_ALLOW_RESTORE` asks for verify and restore (`1`, `true`, `yes`). */
export function restoreAllowed(env: Record<string, string | undefined> = process.env): boolean {
  return /^(1|true|yes|on)$/i.test(env.DEV_APP_ALLOW_RESTORE ?? '')
}

/** A video library the job backs up with a `host-stream` source. */
export interface StreamLibrary {
  apiBase: string
  libraryId: number
  apiKey: string
  cdnUrl: string
}

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
  /** The stream library whose videos the job backs up (omitted: no `videos` source). */
  stream?: StreamLibrary
  /** Folder holding the documents zone's files (the emulator's second zone): the `documents` source. */
  documentsFolder?: string
  /** The private videos' library: the `private-videos` source. */
  privateStream?: StreamLibrary
  /** Verify and restore from the UI and API, into `<dataDir>/restore/`. @default false */
  allowRestore?: boolean
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

/**
 * A daily restore drill an hour after the midnight backup (issue 25), with the CMS check: every image
 * document's files in the restored `media` and every video document's GUID in the restored `videos`. The
 * check reads the restored database, which the daemon can do for SQLite and PostgreSQL (the dump restored
 * into a scratch database, as its own check does): with MongoDB the drill compares the files and runs the
 * kinds' own checks alone.
 */
function drillConfig(input: DaemonConfigInput): Record<string, unknown> {
  const collections = [...(input.mediaFolder ? [{ slug: 'images', check: 'uploads' }] : []), ...(input.stream ? [{ slug: 'videos', check: 'videos' }] : [])]
  const cms =
    databaseKind(input.databaseUri) !== 'mongodb' && collections.length > 0
      ? {
          database: 'database',
          ...(input.mediaFolder && { uploads: 'media' }),
          ...(input.stream && { videos: 'videos' }),
          collections,
        }
      : undefined
  return { schedule: '0 1 * * *', ...(cms && { cms }) }
}

/** A library's videos, mirrored in `<daemon dir>/stream-mirror[-<name>]/` so a run downloads only what is new. */
function streamSource(name: string, library: StreamLibrary, daemonDir: string): Record<string, unknown> {
  return {
    type: 'host-stream',
    name,
    apiBase: library.apiBase,
    libraryId: library.libraryId,
    apiKey: library.apiKey,
    pullZoneHostname: library.cdnUrl,
    // The first library's mirror keeps the folder it always had.
    syncPath: path.join(daemonDir, name === 'videos' ? 'stream-mirror' : `stream-mirror-${name}`),
  }
}

export function writeDaemonConfig(input: DaemonConfigInput): string {
  const daemonDir = path.join(input.dataDir, 'daemon')
  mkdirSync(daemonDir, { recursive: true, mode: 0o700 })
  const restoreRoot = path.join(input.dataDir, 'restore')
  if (input.allowRestore) mkdirSync(restoreRoot, { recursive: true, mode: 0o700 })
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
      permissions: { allowManualRun: true, allowBackupDownload: true, showConfig: true, allowRestore: Boolean(input.allowRestore) },
    },
    ...(input.allowRestore && { restore: { roots: [restoreRoot] } }),
    logs: { system: true, perJob: true },
    jobs: [
      {
        name: 'cms',
        schedule: '0 */6 * * *',
        active: true,
        compression: 'tar.gz',
        sources: [
          databaseSource(input.databaseUri),
          // The zone's own backups are not media.
          ...(input.mediaFolder ? [{ type: 'local', name: 'media', path: input.mediaFolder, exclude: [`${privateBackupsPath}/**`] }] : []),
          ...(input.documentsFolder ? [{ type: 'local', name: 'documents', path: input.documentsFolder }] : []),
          ...(input.stream ? [streamSource('videos', input.stream, daemonDir)] : []),
          ...(input.privateStream ? [streamSource('private-videos', input.privateStream, daemonDir)] : []),
        ],
        storages: [
          { type: 'local', name: 'disk', path: path.join(input.dataDir, 'backups') },
          // The CMS's zone is public (its pull zone serves the media): snapshots go to a folder it refuses.
          { type: 'host', name: 'storage-host', ...input.host, path: privateBackupsPath, zoneIsPublic: true, pullZoneBlocksPath: true },
        ],
        retention: { last: 10 },
        drill: drillConfig(input),
      },
    ],
  }
  const file = path.join(daemonDir, 'backup-daemon.yaml')
  writeFileSync(file, `# Written by the dev-app on every start; edit src/start/daemonConfig.ts instead.\n${stringify(config)}`, { mode: 0o600 })
  return file
}
