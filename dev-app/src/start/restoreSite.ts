/**
 * @module start/restoreSite
 * `npm run restore-site -- --snapshot NAME|latest --data-dir NEW [--from DIR] [--storage NAME] [--database-uri URI]`: brings the
 * whole dev-app site back from a snapshot of the daemon's `cms` job into a fresh data folder and a fresh
 * emulator library.
 *
 * 1. `NEW` is claimed (`restoreSiteTarget.ts`): new, or empty, a real folder of the user running the command,
 *    made 0700 before anything goes in; the old folder's `credentials.json` is copied in (never through a
 *    link), so the emulator has the old keys and the printed login matches the restored users.
 * 2. The emulator is started on `NEW/host` (an empty library, the same id and keys) on `EMULATOR_PORT`.
 * 3. The daemon's CLI (`restore cms SNAPSHOT --to … --into-library --guid-map …`) runs with a config made from
 *    the old one (`restoreSiteConfig.ts`): the same storages, but the video library sources pointed at that
 *    emulator and the daemon's state in `NEW`, so the videos go only there, never to the old site's library.
 * 4. The database goes into place (`restoreSiteDatabase.ts`: SQLite's file as `NEW/db/cms.db`; on
 *    PostgreSQL the dump into the new or empty database `--database-uri` names), and the storage zone's
 *    files into `NEW/host/storage/…`.
 * 5. Once every video is encoded, `remapRestoredVideos.ts` moves the documents to the new GUIDs.
 * A failure empties `NEW` again (its videos were uploaded into `NEW`'s own emulator), so the same command
 * can be run once more. MongoDB is not handled: use the daemon's `restore --into-database` (README).
 */
import { constants } from 'node:fs'
import { cp, copyFile, lstat, mkdir, readFile, rm, stat } from 'node:fs/promises'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startEmulator } from '../emulator/index.js'
import { ports } from '../ports.js'
import { settings } from '../settings.js'
import { runChild } from './children.js'
import { prepareDataFolder } from './dataFolder.js'
import { emulatorOptions } from './emulatorOptions.js'
import { remapDoneLine } from './remapDone.js'
import { writeRestoreConfig } from './restoreSiteConfig.js'
import { siteDatabase } from './restoreSiteDatabase.js'
import { claimRestoreTarget, emptyRestoreTarget } from './restoreSiteTarget.js'

const step = (message: string) => console.log(`[restore-site] ${message}`)
const repoRoot = path.resolve(settings.appRoot, '..')
const daemonBin = path.join(repoRoot, 'backup-daemon', 'bin', 'backup-daemon.js')

const { values } = parseArgs({
  options: {
    snapshot: { type: 'string' },
    'data-dir': { type: 'string' },
    from: { type: 'string' },
    storage: { type: 'string' },
    'database-uri': { type: 'string' },
  },
})
if (!values.snapshot || !values['data-dir']) {
  console.error(
    'usage: npm run restore-site -w dev-app -- --snapshot NAME|latest --data-dir NEW_DIR [--from DATA_DIR] [--storage disk] [--database-uri postgres://…/NEW_DB]',
  )
  process.exit(2)
}
const from = path.resolve(values.from ?? settings.dataDir)
const target = path.resolve(values['data-dir'])
const database = (() => {
  try {
    return siteDatabase({ liveUri: settings.databaseUri, target, databaseUri: values['database-uri'] })
  } catch (err) {
    console.error(`restore-site: ${(err as Error).message}`)
    process.exit(2)
  }
})()
const storage = values.storage ?? 'disk'
const oldConfig = path.join(from, 'daemon', 'backup-daemon.yaml')
if (target === from) {
  console.error(`restore-site: --data-dir is the data folder the snapshot comes from (${from}); give a new one`)
  process.exit(2)
}
await stat(oldConfig).catch(() => {
  console.error(`restore-site: no daemon config in ${from} (${oldConfig}); --from names the data folder whose backups to restore`)
  process.exit(2)
})

/** Runs the daemon's CLI with `config`; resolves with its stdout (also shown), rejects on a non-zero exit. */
function daemon(config: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [daemonBin, ...args, '--config', config, '--storage', storage], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (!args.includes('--json')) process.stdout.write(chunk)
    })
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`backup-daemon ${args[0]} failed (exit code ${code})`))))
  })
}

try {
  await database.check()
  claimRestoreTarget(target)
} catch (err) {
  console.error(`restore-site: ${(err as Error).message}`)
  process.exit(2)
}
prepareDataFolder(target)
const work = path.join(target, 'restore-work')
const unpacked = path.join(work, 'files')
const mapFile = path.join(target, 'restore-guid-map.json')
let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined
try {
  // The old folder's credentials first: the emulator below has its keys. Never written through a planted link.
  const credentials = path.join(from, 'credentials.json')
  if (await stat(credentials).catch(() => undefined)) await copyFile(credentials, path.join(target, 'credentials.json'), constants.COPYFILE_EXCL)
  emulator = await startEmulator(emulatorOptions(target)).catch((err: Error) => {
    throw new Error(`cannot start the host emulator on port ${ports.emulator} (is the dev-app still running? stop it, or give EMULATOR_PORT): ${err.message}`)
  })
  await mkdir(work, { mode: 0o700 })
  const config = await writeRestoreConfig(oldConfig, work, {
    apiBase: emulator.stream.apiBase,
    cdnUrls: new Map(emulator.libraries.map((library) => [library.libraryId, library.cdnUrl])),
  })
  let snapshot = values.snapshot
  if (snapshot === 'latest') {
    const listed = (await daemon(config, ['snapshots', 'cms', '--json'])).split('\n').filter(Boolean)
    if (listed.length === 0) throw new Error(`no snapshot of job "cms" on storage "${storage}"`)
    snapshot = (JSON.parse(listed[0]!) as { name: string }).name
  }
  step(
    `restoring ${snapshot} from ${from} into ${target}; its videos go to the emulator at ${emulator.url} (libraries ${emulator.libraries.map((l) => l.libraryId).join(', ')})`,
  )
  await daemon(config, ['restore', 'cms', snapshot, '--to', unpacked, '--into-library', '--guid-map', mapFile])
  const map = JSON.parse(await readFile(mapFile, 'utf8')) as Record<string, { ids: Record<string, string> }>
  const guids = Object.values(map).flatMap((entry) => Object.values(entry.ids))
  step(`waiting for ${guids.length} video(s) to be encoded…`)
  const running = emulator
  await Promise.all(guids.map((guid) => running.whenEncoded(guid)))

  step(`restoring the database into ${database.shown}`)
  await database.restore(unpacked)
  // Each zone's files from its source: `media` for the images' zone, `documents` for the documents' zone.
  for (const [source, zoneName] of [
    ['media', settings.storage.zoneName],
    ['documents', settings.documents.zoneName],
  ] as const) {
    const files = path.join(unpacked, source)
    if (!(await lstat(files).catch(() => undefined))?.isDirectory()) continue
    const zone = path.join(target, 'host', 'storage', zoneName)
    await mkdir(zone, { recursive: true })
    await cp(files, zone, { recursive: true })
  }
  step('database and storage files in place; moving the documents to the new videos')
  await runChild(
    'remap',
    process.execPath,
    ['--conditions=development', '--import', 'tsx', path.join(settings.appRoot, 'src', 'start', 'remapRestoredVideos.ts')],
    {
      cwd: settings.appRoot,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        DEV_APP_DATA_DIR: target,
        DATABASE_URI: database.uri,
        RESTORE_GUID_MAP: mapFile,
      },
      doneLine: remapDoneLine,
    },
  )
  await rm(work, { recursive: true, force: true })
  const databaseEnv = database.uri.startsWith('file:') ? '' : `DATABASE_URI=<the --database-uri above> `
  step(`done. Start the restored site: DEV_APP_DATA_DIR=${target} ${databaseEnv}npm start -w dev-app`)
} catch (err) {
  await emulator?.close()
  emulator = undefined
  // Everything in the folder is this run's (it was new or empty): emptied, the same command can run again.
  emptyRestoreTarget(target)
  console.error(`[restore-site] failed: ${(err as Error).message}`)
  console.error(`[restore-site] ${target} was emptied again: nothing of the failed attempt is left; run the same command once more`)
  process.exitCode = 1
} finally {
  await emulator?.close()
}
