/**
 * @module test/start/dataFolderModes
 * Issue 28 #4: `npm start`'s data folder is the owner's alone. The real start script (src/start/main.ts)
 * runs with a fresh data folder until the seed step has created the CMS's SQLite database, then is
 * stopped: the folder and its subfolders are 0700, the database and the credentials file 0600. A data
 * folder left world-readable by an older version is tightened at start.
 */
import { spawn } from 'node:child_process'
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { freePort } from '../../../backup-daemon/test/support/freePort.js'

const appRoot = fileURLToPath(new URL('../..', import.meta.url))

/** Every path under `root` with its permission bits. */
function modes(root: string): Map<string, number> {
  const found = new Map<string, number>()
  const walk = (target: string) => {
    const stat = lstatSync(target)
    if (stat.isSymbolicLink()) return
    found.set(path.relative(root, target) || '.', stat.mode & 0o777)
    if (stat.isDirectory()) for (const entry of readdirSync(target)) walk(path.join(target, entry))
  }
  walk(root)
  return found
}

describe('dev-app: the data folder is owner-only (issue 28 #4)', function () {
  this.timeout(240_000)
  let dir: string
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dev-app-modes-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('npm start creates the folder 0700 and the SQLite database and credentials 0600', async () => {
    const dataDir = path.join(dir, '.data')
    // What an older version left: a world-readable folder and file.
    mkdirSync(path.join(dataDir, 'old'), { recursive: true, mode: 0o755 })
    chmodSync(dataDir, 0o755)
    writeFileSync(path.join(dataDir, 'old', 'left.txt'), 'x', { mode: 0o644 })
    const [cms, daemon, emulator] = await Promise.all([freePort(), freePort(), freePort()])
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(appRoot, 'src', 'start', 'main.ts')], {
      cwd: appRoot,
      env: { ...process.env, DEV_APP_DATA_DIR: dataDir, CMS_PORT: String(cms), DAEMON_PORT: String(daemon), EMULATOR_PORT: String(emulator), DATABASE_URI: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let output = ''
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "seed: database ready" within 200 s:\n${output}`)), 200_000)
        const onData = (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes('seed: database ready')) {
            clearTimeout(timer)
            resolve()
          }
        }
        child.stdout.on('data', onData)
        child.stderr.on('data', onData)
        child.once('exit', (code) => {
          clearTimeout(timer)
          reject(new Error(`main.ts exited ${code} before the seed was done:\n${output}`))
        })
      })
    } finally {
      // The whole group: main.ts and whatever it started (an admin build may have begun).
      if (child.pid) process.kill(-child.pid, 'SIGTERM')
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)))
    }
    const found = modes(dataDir)
    expect(found.get('.')).to.equal(0o700)
    expect(found.get('db')).to.equal(0o700)
    expect(found.get(path.join('db', 'cms.db'))).to.equal(0o600)
    expect(found.get(path.join('old', 'left.txt'))).to.equal(0o600)
    for (const [name, mode] of found) expect(mode & 0o077, `${name} is ${mode.toString(8)}`).to.equal(0)
  })
})
