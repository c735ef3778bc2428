/**
 * @module start/daemonConfig
 * The backup daemon's configuration for the dev-app: one job backing up the CMS's database and the
 * emulated storage host's files on a schedule, to local disk.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { stringify } from 'yaml'

export interface DaemonConfigInput {
  dataDir: string
  port: number
  username: string
  passwordHash: string
  secret: string
  databaseFolder: string
  mediaFolder: string
}

export function writeDaemonConfig(input: DaemonConfigInput): string {
  const daemonDir = path.join(input.dataDir, 'daemon')
  mkdirSync(daemonDir, { recursive: true })
  const config = {
    dataDir: daemonDir,
    server: {
      address: `0.0.0.0:${input.port}`,
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
          { type: 'local', name: 'database', path: input.databaseFolder },
          { type: 'local', name: 'media', path: input.mediaFolder, exclude: ['**/.tus/**'] },
        ],
        storages: [{ type: 'local', name: 'disk', path: path.join(input.dataDir, 'backups') }],
        retention: { last: 10 },
      },
    ],
  }
  const file = path.join(daemonDir, 'backup-daemon.yaml')
  writeFileSync(file, `# Written by the dev-app on every start; edit src/start/daemonConfig.ts instead.\n${stringify(config)}`, { mode: 0o600 })
  return file
}
