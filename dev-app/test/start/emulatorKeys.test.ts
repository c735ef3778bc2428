/**
 * @module test/start/emulatorKeys
 * Issue 39 #1: the host emulator's keys are the data folder's own. The emulator is started as `npm start`
 * starts it (`emulatorOptions` on a data folder whose `credentials.json` the start created) with a snapshot
 * in the daemon's folder; a local user (`nobody`, curl) tries what the probe did with the old fixed keys:
 * download the snapshot, PUT a forged one, DELETE it, list the library; every answer is 401, and the
 * credentials file, which holds the real keys, cannot be read. The CMS's settings take the same keys (its
 * webhook secret is the folder's, not the old fixed string), and an older credentials file gets keys added.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js'
import { loadOrCreateCredentials, type Credentials } from '../../src/start/credentials.js'
import { privateBackupsPath } from '../../src/start/daemonConfig.js'
import { emulatorOptions } from '../../src/start/emulatorOptions.js'

const appRoot = fileURLToPath(new URL('../..', import.meta.url))
const fixed = { storage: 'dev-storage-key', stream: 'dev-stream-key', webhook: 'dev-stream-readonly-key' }

/** curl as nobody: the HTTP status (asynchronous: the emulator answers from this process). */
function curlAsNobody(args: string[]): Promise<number> {
  const asNobody = ['--reuid=nobody', '--regid=nogroup', '--clear-groups']
  const curl = spawn('setpriv', [...asNobody, 'curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', ...args])
  let out = ''
  curl.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  return new Promise((resolve, reject) => {
    curl.once('error', (err) => reject(new Error(`curl as nobody needs root, setpriv and curl: ${err.message}`)))
    curl.once('close', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`curl as nobody exited with ${code}`))))
  })
}

describe('dev-app: the emulator’s keys are random per data folder (issue 39 #1)', function () {
  this.timeout(60_000)
  let dir: string
  let dataDir: string
  let credentials: Credentials
  let emulator: RunningEmulator
  const snapshot = `${privateBackupsPath}/cms/cms-2026-01-31T03-00-00-000Z.tar.gz`

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dev-app-keys-'))
    dataDir = path.join(dir, '.data')
    credentials = loadOrCreateCredentials(dataDir)
    // Reachable by other users down to the file itself: its own mode is what keeps them out.
    chmodSync(dir, 0o755)
    chmodSync(dataDir, 0o755)
    emulator = await startEmulator({ ...emulatorOptions(dataDir), port: 0 })
    const put = await fetch(`${emulator.storage.endpoint}/${emulator.storage.zoneName}/${snapshot}`, {
      method: 'PUT',
      headers: { AccessKey: credentials.storageAccessKey },
      body: 'the CMS database',
    })
    expect(put.status).to.equal(201)
  })
  after(async () => {
    await emulator?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('gives a local user with the old fixed keys 401 for the download, the PUT, the DELETE and the library', async () => {
    const object = `${emulator.storage.endpoint}/${emulator.storage.zoneName}/${snapshot}`
    expect(await curlAsNobody(['-H', `AccessKey: ${fixed.storage}`, object]), 'download').to.equal(401)
    expect(await curlAsNobody(['-X', 'PUT', '-H', `AccessKey: ${fixed.storage}`, '--data-binary', 'forged', `${object}.forged`]), 'PUT').to.equal(401)
    expect(await curlAsNobody(['-X', 'DELETE', '-H', `AccessKey: ${fixed.storage}`, object]), 'DELETE').to.equal(401)
    const library = `${emulator.stream.apiBase}/library/${emulator.stream.libraryId}/videos`
    expect(await curlAsNobody(['-H', `AccessKey: ${fixed.stream}`, library]), 'library').to.equal(401)
    expect(emulator.storedFilePath(snapshot), 'the snapshot is still there').to.be.a('string')
    // The folder's own key works (the owner's curl), and is no fixed string.
    for (const key of [credentials.storageAccessKey, credentials.streamApiKey, credentials.webhookSecret, credentials.accountApiKey]) {
      expect(key).to.match(/^[\w-]{32}$/)
    }
    expect(emulator.storage.accessKey).to.equal(credentials.storageAccessKey)
    expect(emulator.stream.readOnlyKey).to.equal(credentials.webhookSecret)
  })

  it('keeps the real keys where only the owner reads them: credentials.json is 0600, nobody cannot cat it', () => {
    const file = path.join(dataDir, 'credentials.json')
    expect((statSync(file).mode & 0o777).toString(8)).to.equal('600')
    const cat = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'cat', file], { encoding: 'utf8' })
    expect(cat.status).to.not.equal(0)
    expect(cat.stdout).to.not.include(credentials.storageAccessKey)
  })

  it('the CMS’s settings take the folder’s keys: its webhook secret is the folder’s, not the old fixed one', async () => {
    const script =
      "const { settings } = await import('./src/settings.ts'); console.log(JSON.stringify([settings.storage.accessKey, settings.stream.apiKey, settings.stream.readOnlyKey]))"
    const env: NodeJS.ProcessEnv = { ...process.env, DEV_APP_DATA_DIR: dataDir, NODE_OPTIONS: '' }
    for (const name of ['HOST_STORAGE_ACCESS_KEY', 'HOST_STREAM_API_KEY', 'HOST_STREAM_READONLY_KEY']) delete env[name]
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: appRoot, env })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
    await new Promise((resolve) => child.once('close', resolve))
    expect(JSON.parse(out.trim())).to.deep.equal([credentials.storageAccessKey, credentials.streamApiKey, credentials.webhookSecret])
    expect(out).to.not.include(fixed.webhook)
  })

  it('adds keys to a credentials file an older version wrote, keeping the rest and 0600', () => {
    const older = path.join(dir, 'older')
    const first = loadOrCreateCredentials(older)
    const { storageAccessKey, streamApiKey, webhookSecret, accountApiKey, ...without } = first
    writeFileSync(path.join(older, 'credentials.json'), JSON.stringify(without), { mode: 0o600 })
    const upgraded = loadOrCreateCredentials(older)
    expect(upgraded).to.include(without)
    expect(upgraded.storageAccessKey)
      .to.match(/^[\w-]{32}$/)
      .and.not.equal(storageAccessKey)
    expect([upgraded.streamApiKey, upgraded.webhookSecret, upgraded.accountApiKey]).to.not.include.members([streamApiKey, webhookSecret, accountApiKey])
    const file = path.join(older, 'credentials.json')
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.deep.equal(upgraded)
    expect((statSync(file).mode & 0o777).toString(8)).to.equal('600')
    expect(loadOrCreateCredentials(older), 'a second start reads the same keys').to.deep.equal(upgraded)
  })
})
