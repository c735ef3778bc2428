/**
 * @module test/start/restoreSiteSafety
 * Issue 37: `npm run restore-site` is safe. An old site (a data folder with its daemon config, a video in
 * its emulator's library, a snapshot made by `backup-daemon run cms`) whose emulator still runs, and
 * restore-site run as a user runs it, with another `EMULATOR_PORT`:
 * - the video goes into the new data folder's emulator only: the old (live) library keeps its one video;
 * - a failure later on (here: the snapshot's database is not where the site's belongs) empties the folder
 *   again, saying so, and the same command in the same folder gets as far again;
 * - a `--data-dir` that is a symbolic link, belongs to another user or is not empty is refused before
 *   anything is written, and nothing is written through a link planted beside it.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { startEmulator } from '../../src/emulator/index.js'
import { loadOrCreateCredentials } from '../../src/start/credentials.js'
import { writeDaemonConfig } from '../../src/start/daemonConfig.js'
import { emulatorOptions } from '../../src/start/emulatorOptions.js'
import { claimRestoreTarget, RestoreTargetError } from '../../src/start/restoreSiteTarget.js'
import { hostKeys, settings } from '../../src/settings.js'

const appRoot = fileURLToPath(new URL('../..', import.meta.url))
const daemonBin = path.join(appRoot, '..', 'backup-daemon', 'bin', 'backup-daemon.js')

/** A port free now (the emulators listen on it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; output: string }> {
  const child = spawn(command, args, { cwd: appRoot, env: { ...process.env, FORCE_COLOR: '', ...env } })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, output })))
}

describe('dev-app: restore-site writes only where it was told (issue 37)', function () {
  this.timeout(240_000)
  let dir: string
  let old: string
  let oldEmulator: Awaited<ReturnType<typeof startEmulator>>
  let newPort: number
  const restoreSite = (target: string) =>
    run(process.execPath, ['--import', 'tsx', 'src/start/restoreSite.ts', '--snapshot', 'latest', '--from', old, '--data-dir', target], {
      EMULATOR_PORT: String(newPort),
      EMULATOR_ENCODING_STEP_MS: '5',
    })
  const oldVideos = async () => {
    const keys = hostKeys(old)
    const res = await fetch(`${oldEmulator.stream.apiBase}/library/${settings.stream.libraryId}/videos?page=1&itemsPerPage=100`, {
      headers: { AccessKey: keys.streamApiKey },
    })
    return ((await res.json()) as { totalItems: number }).totalItems
  }

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dev-app-restore-site-'))
    chmodSync(dir, 0o755)
    old = path.join(dir, 'old')
    loadOrCreateCredentials(old)
    const keys = hostKeys(old)
    oldEmulator = await startEmulator({ ...emulatorOptions(old), port: await freePort() })
    newPort = await freePort()
    const library = `${oldEmulator.stream.apiBase}/library/${settings.stream.libraryId}`
    const { guid } = (await (
      await fetch(`${library}/videos`, {
        method: 'POST',
        headers: { AccessKey: keys.streamApiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'Old film' }),
      })
    ).json()) as { guid: string }
    const bytes = Buffer.concat([Buffer.from('\0\0\0\u0018ftypisom\0\0\0\0isommp41', 'latin1'), Buffer.alloc(4000, 7)])
    const put = await fetch(`${library}/videos/${guid}`, { method: 'PUT', headers: { AccessKey: keys.streamApiKey }, body: bytes })
    expect(put.status).to.equal(200)
    await oldEmulator.whenEncoded(guid)
    mkdirSync(path.join(old, 'db'), { recursive: true })
    // Not `cms.db`: the snapshot's database is then not where a SQLite site's belongs, and restore-site fails after the upload.
    const sqlite = spawnSync('sqlite3', [path.join(old, 'db', 'other.db'), 'create table users(email text)'])
    if (sqlite.status !== 0) throw new Error(`sqlite3 (Debian package sqlite3) failed: ${sqlite.stderr}`)
    const config = writeDaemonConfig({
      dataDir: old,
      port: 0,
      bindAddress: '127.0.0.1',
      username: 'admin',
      passwordHash: 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      secret: 'restore-site-secret',
      databaseUri: `file:${path.join(old, 'db', 'other.db')}`,
      host: { endpoint: oldEmulator.storage.endpoint, zoneName: settings.storage.zoneName, accessKey: keys.storageAccessKey },
      stream: { apiBase: oldEmulator.stream.apiBase, libraryId: settings.stream.libraryId, apiKey: keys.streamApiKey, cdnUrl: oldEmulator.stream.cdnUrl },
    })
    const backup = await run(process.execPath, [daemonBin, 'run', 'cms', '--config', config])
    expect(backup.status, backup.output).to.equal(0)
    expect(await oldVideos()).to.equal(1)
  })
  after(async () => {
    await oldEmulator?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('uploads the videos into the new folder’s emulator only; a failure empties the folder, and the same command runs again', async () => {
    const target = path.join(dir, 'new')
    for (const attempt of [1, 2]) {
      const result = await restoreSite(target)
      expect(result.status, result.output).to.equal(1)
      // Uploaded, into the new emulator (its port in the line), then the failure further on.
      expect(result.output, result.output).to.match(new RegExp(`its videos go to the emulator at http://[^ ]+:${newPort} `))
      expect(result.output).to.match(/videos: 1 uploaded, 0 skipped/)
      expect(result.output).to.include('the snapshot has no file cms.sqlite where the database belongs')
      expect(result.output).to.include(`${target} was emptied again`)
      expect(readdirSync(target), `attempt ${attempt}`).to.deep.equal([])
      // The live site's library is as it was: no copy of its video was made there.
      expect(await oldVideos(), `attempt ${attempt}`).to.equal(1)
    }
    // Nothing of the old site's daemon state was written (its history has the backup only).
    expect(readdirSync(path.join(old, 'daemon', 'history'))).to.deep.equal(['cms.json'])
    expect(readFileSync(path.join(old, 'daemon', 'history', 'cms.json'), 'utf8')).not.to.include('"restore"')
  })

  it('refuses a --data-dir that is a link, belongs to another user or is not empty, before writing anything', async () => {
    const elsewhere = path.join(dir, 'elsewhere')
    mkdirSync(elsewhere, { mode: 0o777 })
    chmodSync(elsewhere, 0o777)
    const link = path.join(dir, 'site-restored')
    symlinkSync(elsewhere, link)
    const linked = await restoreSite(link)
    expect(linked.status, linked.output).to.equal(2)
    expect(linked.output).to.include(`--data-dir ${link}: it is a symbolic link`)
    expect(readdirSync(elsewhere)).to.deep.equal([])
    expect(lstatSync(elsewhere).mode & 0o777).to.equal(0o777)

    // The same rule as the command applies it (no process each): a folder a local user made (and could plant
    // links in) is not ours; ours but holding a planted link is not empty; the link's file is untouched.
    const theirs = path.join(dir, 'theirs')
    mkdirSync(theirs, { mode: 0o777 })
    chownSync(theirs, 65534, 65534)
    expect(() => claimRestoreTarget(theirs)).to.throw(RestoreTargetError, /it belongs to user id 65534, not to you/)
    const planted = path.join(dir, 'planted')
    mkdirSync(planted, { mode: 0o777 })
    const victim = path.join(dir, 'victim.json')
    writeFileSync(victim, 'the owner’s file')
    symlinkSync(victim, path.join(planted, 'credentials.json'))
    expect(() => claimRestoreTarget(planted)).to.throw(RestoreTargetError, /it is not empty \(credentials\.json\)/)
    expect(readFileSync(victim, 'utf8')).to.equal('the owner’s file')
    // Made private before it was looked into: nobody else can plant anything in it meanwhile.
    expect(lstatSync(planted).mode & 0o777).to.equal(0o700)
    expect(() => claimRestoreTarget(path.join(dir, 'no', 'such'))).to.throw(RestoreTargetError, /its parent folder .* does not exist/)
  })
})
