/**
 * @module test/restoreMatrix/support/matrixConfig
 * The matrix's daemon config: one job per storage kind (`m-local`, `m-sftp`, …), each holding all eight
 * sources and one storage, each with its own archive format so that the plain tools of the README are all
 * used (gzip, zstd + age, xz + openssl, plain tar split into parts, zstd; restic keeps its own format);
 * restores allowed below one root and into one database of each kind per storage.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hashPassword } from '../../../src/auth/password.js'
import type { MatrixServers } from './matrixServers.js'

export const storageKinds = ['local', 'sftp', 's3', 'webdav', 'host', 'restic'] as const
export type StorageKind = (typeof storageKinds)[number]

export const operator = { username: 'operator', password: 'matrix operator password' }
export const agePassphrase = 'matrix age passphrase, long enough'
export const opensslPassword = 'matrix openssl password'
export const resticPassword = 'matrix restic password'

/** How each job's archive is made (restic: none, the repository's own). */
export const archiveFormat: Record<StorageKind, { compression?: string; encryption?: Record<string, string>; split?: { chunkSize: number } }> = {
  local: { compression: 'tar.gz' },
  sftp: { compression: 'tar.zst', encryption: { type: 'age', passphrase: agePassphrase } },
  s3: { compression: 'tar.xz', encryption: { type: 'openssl', cipher: 'aes-256-cbc', password: opensslPassword } },
  webdav: { compression: 'tar', split: { chunkSize: 256 * 1024 } },
  host: { compression: 'tar.zst' },
  restic: {},
}

export const jobOf = (kind: StorageKind) => `m-${kind}`

function storageEntry(kind: StorageKind, dir: string, servers: MatrixServers): Record<string, unknown> {
  const { ssh, webdav, s3, emulator } = servers
  switch (kind) {
    case 'local':
      return { type: 'local', name: 'local', path: join(dir, 'storages', 'local') }
    case 'sftp':
      return {
        type: 'sftp',
        name: 'sftp',
        host: ssh.host,
        port: ssh.port,
        username: ssh.username,
        privateKey: ssh.clientKey,
        knownHosts: ssh.knownHosts,
        path: join(ssh.root, 'backups'),
      }
    case 's3':
      return {
        type: 's3',
        name: 's3',
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        usePathStyle: true,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        path: 'matrix',
      }
    case 'webdav':
      return { type: 'webdav', name: 'webdav', url: webdav.url, username: webdav.username, password: webdav.password, path: 'backups' }
    case 'host':
      return {
        type: 'host',
        name: 'host',
        endpoint: emulator.storage.endpoint,
        zoneName: emulator.storage.zoneName,
        accessKey: emulator.storage.accessKey,
        path: 'backups',
      }
    case 'restic':
      return { type: 'restic', name: 'restic', repository: join(dir, 'storages', 'restic'), password: resticPassword }
  }
}

export type DatabaseKind = 'sqlite' | 'pg' | 'maria'
/** Who restores into a target: the API (`restore.databases`) or the CLI (`--into-database NAME`). */
export type TargetUser = 'api' | 'cli'
/** The `restore.databases` name of a target, one per storage kind, database kind and user. */
export const targetOf = (kind: StorageKind, db: DatabaseKind, by: TargetUser) => `${db}-${kind}-${by}`
/** The database behind a PostgreSQL or MariaDB target (created empty for PostgreSQL). */
export const targetDatabase = (kind: StorageKind, by: TargetUser) => `target_${kind}_${by}`
/** The file behind a SQLite target (absent until restored). */
export const targetSqlite = (dir: string, kind: StorageKind, by: TargetUser) => join(dir, 'targets', `${kind}-${by}.sqlite`)

export interface MatrixConfig {
  file: string
  /** Files restores go strictly below this folder. */
  root: string
}

export async function writeMatrixConfig(dir: string, servers: MatrixServers, sources: (kind: StorageKind) => Record<string, unknown>[]): Promise<MatrixConfig> {
  const { pg, maria } = servers
  const root = join(dir, 'restores')
  mkdirSync(root)
  mkdirSync(join(dir, 'targets'))
  const databases: Record<string, unknown> = {}
  for (const kind of storageKinds) {
    for (const by of ['api', 'cli'] as const) {
      databases[targetOf(kind, 'sqlite', by)] = { type: 'sqlite', path: targetSqlite(dir, kind, by) }
      const database = targetDatabase(kind, by)
      databases[targetOf(kind, 'pg', by)] = { type: 'postgresql', database, host: pg.socketDir, port: pg.port, user: pg.superuser }
      databases[targetOf(kind, 'maria', by)] = {
        type: 'mariadb',
        database,
        host: '127.0.0.1',
        port: maria.port,
        username: maria.username,
        password: maria.password,
      }
      await pg.sql('postgres', `CREATE DATABASE ${database}`)
    }
  }
  const config = {
    dataDir: join(dir, 'data'),
    server: {
      address: '127.0.0.1:0',
      secret: 'matrix-secret-0123456789abcdef0123456789abcdef',
      auth: { enabled: true, username: operator.username, password: await hashPassword(operator.password) },
      permissions: { allowRestore: true, allowBackupDownload: true },
      ui: { enabled: true },
    },
    logs: { directory: join(dir, 'data', 'logs') },
    restore: { roots: [root], databases },
    jobs: storageKinds.map((kind) => ({ name: jobOf(kind), ...archiveFormat[kind], sources: sources(kind), storages: [storageEntry(kind, dir, servers)] })),
  }
  const file = join(dir, 'backup-daemon.yaml')
  writeFileSync(file, JSON.stringify(config, null, 2))
  return { file, root }
}
