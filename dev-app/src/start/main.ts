/**
 * @module start/main
 * `npm start`: the whole system on one machine with no account anywhere. Starts the host emulator,
 * brings the CMS database up to date (first start: admin user and sample content), builds the admin
 * panel when its sources changed, starts the CMS and the backup daemon, prints every URL, the
 * first-login credentials and the emulator's keys, and stops everything on Ctrl-C.
 */
import type { ChildProcess } from 'node:child_process'
import path from 'node:path'
import { hashPassword } from '@hosted-media/backup-daemon/password'
import { startEmulator, type RunningEmulator } from '../emulator/index.js'
import { ports } from '../ports.js'
import { dataDir, databaseType, reachableHost, settings } from '../settings.js'
import { buildAdmin, buildIsCurrent, withBuildLock } from './adminBuild.js'
import { runChild, startChild, stopChildren, waitForHttp } from './children.js'
import { cmsInstanceCount, startCmsInstances, type RunningCms } from './cmsInstances.js'
import { loadOrCreateCredentials } from './credentials.js'
import { prepareDataFolder } from './dataFolder.js'
import { restoreAllowed, writeDaemonConfig } from './daemonConfig.js'
import { emulatorOptions } from './emulatorOptions.js'
import { seedDoneLine } from './seedDone.js'

const startedAt = Date.now()
const seconds = () => ((Date.now() - startedAt) / 1000).toFixed(1)
const step = (message: string) => console.log(`[dev-app] ${message}`)
const repoRoot = path.resolve(settings.appRoot, '..')

// Owner-only data folder and files (start/dataFolder.ts); the umask is inherited by every child.
prepareDataFolder(dataDir)
const credentials = loadOrCreateCredentials(dataDir)
const databaseUri = settings.databaseUri
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PAYLOAD_SECRET: process.env.PAYLOAD_SECRET || credentials.payloadSecret,
  DATABASE_URI: databaseUri,
  DEV_APP_DATA_DIR: dataDir,
  NEXT_TELEMETRY_DISABLED: '1',
}

// Checked before anything starts: more than one instance needs a database server.
const instanceCount = (() => {
  try {
    return cmsInstanceCount(process.env.CMS_INSTANCES, databaseType)
  } catch (error) {
    console.error(`[dev-app] ${(error as Error).message}`)
    process.exit(1)
  }
})()
step(`data folder ${dataDir}${{ sqlite: '', mongodb: ' (database: MongoDB)', postgres: ' (database: PostgreSQL)' }[databaseType]}`)
const emulator = process.env.EMULATOR_URL ? undefined : await startEmulator(emulatorOptions(dataDir))
if (emulator) step(`host emulator listening on ${emulator.url}`)

let stopping = false
let cms: RunningCms | undefined
async function stop(code: number): Promise<void> {
  if (stopping) return
  stopping = true
  step('stopping…')
  await stopChildren()
  await cms?.proxy?.close()
  await emulator?.close()
  step('stopped')
  process.exit(code)
}
process.on('SIGINT', () => void stop(0))
process.on('SIGTERM', () => void stop(0))

/**
 * The emulator's keys, printed with the other credentials (a developer's curl or client needs them); they are
 * this data folder's own (`credentials.json`), not fixed strings any local user could use.
 */
function emulatorKeys(running: RunningEmulator): string {
  const [, documents] = running.zones
  const [, privateLibrary] = running.libraries
  return `
                   storage AccessKey ${running.storage.accessKey}  (S3 secret too; bucket and key id ${running.storage.zoneName})
                   stream AccessKey ${running.stream.apiKey}   webhook key ${running.stream.readOnlyKey}
                   documents zone ${documents?.zoneName} AccessKey ${documents?.accessKey}
                   private library ${privateLibrary?.libraryId} AccessKey ${privateLibrary?.apiKey}   webhook key ${privateLibrary?.readOnlyKey}
                   purge AccessKey ${running.account.apiKey}`
}

/** One part dying takes the others down with a message, rather than leaving a half-working system. */
function stopAllWhenItDies(name: string, child: ChildProcess): void {
  child.once('exit', (code, signal) => {
    if (stopping) return
    console.error(`[dev-app] ${name} exited unexpectedly (${signal ?? `exit code ${code}`}); stopping everything`)
    void stop(1)
  })
}

try {
  const nodeBin = process.execPath
  // `--conditions=development`: Lexical's default Node entry files (`*.node.mjs`) pick their dev or prod
  // build with a top-level `await import()`, and Node 20's ESM loader sometimes never settles that graph
  // (the process exits 13, or 0 under tsx, having run nothing). The condition resolves straight to the
  // development builds. The done line catches any other silent exit.
  await runChild('seed', nodeBin, ['--conditions=development', '--import', 'tsx', path.join(settings.appRoot, 'src', 'start', 'seed.ts')], {
    cwd: settings.appRoot,
    env: { ...env, NODE_ENV: 'development', DEV_APP_ADMIN_EMAIL: credentials.adminEmail, DEV_APP_ADMIN_PASSWORD: credentials.adminPassword },
    doneLine: seedDoneLine,
  })

  if (!buildIsCurrent(settings.appRoot)) {
    await withBuildLock(
      settings.appRoot,
      async () => {
        if (buildIsCurrent(settings.appRoot)) return // Another start built it while this one waited.
        step('building the admin panel (after a change or on first start; about two minutes on two cores)…')
        const buildStarted = Date.now()
        const ticker = setInterval(() => step(`  still building… ${Math.round((Date.now() - buildStarted) / 1000)} s`), 15_000)
        await buildAdmin(settings.appRoot, env).finally(() => clearInterval(ticker))
        step(`admin panel built (${seconds()} s)`)
      },
      () => step('waiting for another start of the dev-app to finish building the admin panel…'),
    )
  }

  cms = await startCmsInstances({
    bindAddress: settings.bindAddress,
    count: instanceCount,
    cwd: settings.appRoot,
    env,
    port: ports.cms,
    reachableHost,
    repoRoot,
  })
  for (const { child, name } of cms.children) stopAllWhenItDies(name, child)

  const daemonConfig = writeDaemonConfig({
    dataDir,
    port: ports.daemon,
    bindAddress: settings.bindAddress,
    username: credentials.daemonUsername,
    passwordHash: await hashPassword(credentials.daemonPassword),
    secret: credentials.daemonSecret,
    databaseUri,
    mediaFolder: emulator ? path.join(dataDir, 'host', 'storage', settings.storage.zoneName) : undefined,
    host: { endpoint: settings.storage.endpoint, zoneName: settings.storage.zoneName, accessKey: settings.storage.accessKey },
    documentsFolder: emulator ? path.join(dataDir, 'host', 'storage', settings.documents.zoneName) : undefined,
    stream: { apiBase: settings.stream.apiBase, libraryId: settings.stream.libraryId, apiKey: settings.stream.apiKey, cdnUrl: settings.stream.cdnUrl },
    privateStream: {
      apiBase: settings.stream.apiBase,
      libraryId: settings.privateStream.libraryId,
      apiKey: settings.privateStream.apiKey,
      cdnUrl: settings.privateStream.cdnUrl,
    },
    allowRestore: restoreAllowed(),
  })
  if (restoreAllowed()) step(`daemon: verify and restore on (DEV_APP_ALLOW_RESTORE), restoring into ${path.join(dataDir, 'restore')} only`)
  const daemon = startChild('daemon', nodeBin, [path.join(repoRoot, 'backup-daemon', 'bin', 'backup-daemon.js'), '--config', daemonConfig], {
    cwd: repoRoot,
    env,
  })
  stopAllWhenItDies('daemon', daemon)

  await Promise.all([cms.ready(120_000), waitForHttp(`http://${reachableHost}:${ports.daemon}/api/v1/settings`, 60_000)])

  console.log(`
  CMS admin        ${settings.serverURL}/admin${cms.summary}
                   login ${credentials.adminEmail} / ${credentials.adminPassword}
  CMS REST API     ${settings.serverURL}/api
  OpenAPI          ${settings.serverURL}/api/openapi.json  (docs: ${settings.serverURL}/api/docs)
  Backup daemon    http://localhost:${ports.daemon}/  (API /api/v1)
                   login ${credentials.daemonUsername} / ${credentials.daemonPassword}
  Host emulator    ${emulator?.url ?? settings.emulatorUrl}${emulator ? emulatorKeys(emulator) : ''}
  Data folder      ${dataDir}  (delete it to start afresh)
`)
  step(`ready in ${seconds()} s. Press Ctrl-C to stop.`)
} catch (error) {
  console.error(`[dev-app] start failed: ${(error as Error).message}`)
  await stop(1)
}
