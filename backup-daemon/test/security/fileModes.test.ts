/**
 * Snapshots, state and locks are the owner's only, whatever the umask: after a real
 * `backup-daemon run` (umask 022, the usual default) every file the run created in the local storage is
 * 0600 and every folder 0700, `state.json` is 0600; a held lock file is 0600 in a 0700 folder; a restic
 * run's kept listing and the daemon id are the owner's too (issue 39 #10). The systemd unit sets
 * `UMask=0077` for everything else.
 */
import { expect } from 'chai'
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RunLock } from '../../src/engine/RunLock.js'
import { requireRestic } from '../support/requireRestic.js'
import { writeDaemonConfig, type DaemonJob } from '../ui/support/realDaemon.js'

const bin = new URL('../../bin/backup-daemon.js', import.meta.url).pathname
const modeOf = (path: string) => statSync(path).mode & 0o777

/** `backup-daemon run JOB` under `umask 022`; resolves with the exit code. */
function runWithUmask022(configFile: string, job: string): Promise<number | null> {
  const child = spawn('/bin/sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, bin, 'run', job, '--config', configFile], { stdio: 'ignore' })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', resolve)
  })
}

describe('security: files the daemon creates are not world-readable', function () {
  this.timeout(60_000)
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sec-modes-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('a real run leaves snapshot files 0600, storage folders 0700 and state.json 0600', async () => {
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src', 'data.txt'), 'private data\n')
    const store = join(dir, 'store')
    const config = await writeDaemonConfig({
      dir,
      auth: false,
      jobs: [
        {
          name: 'modes',
          split: { chunkSize: 1024 },
          sources: [{ type: 'local', name: 'f', path: join(dir, 'src') }],
          storages: [{ type: 'local', name: 'd', path: store }],
        },
      ],
    })
    expect(await runWithUmask022(config, 'modes')).to.equal(0)
    const entries = readdirSync(store, { recursive: true, withFileTypes: true })
    const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
    const folders = entries.filter((e) => e.isDirectory()).map((e) => join(e.parentPath, e.name))
    expect(files.some((f) => f.endsWith('.manifest.json'))).to.equal(true)
    for (const file of files) expect(modeOf(file).toString(8), file).to.equal('600')
    for (const folder of [store, ...folders]) expect(modeOf(folder).toString(8), folder).to.equal('700')
    expect(modeOf(join(dir, 'data', 'state.json')).toString(8)).to.equal('600')
  })

  it('issue 39 #10: a restic run in an existing 0755 data folder leaves restic-listing/ 0700, its files and daemon-id 0600, unreadable by nobody', async () => {
    await requireRestic()
    const base = join(dir, 'restic')
    mkdirSync(join(base, 'data'), { recursive: true, mode: 0o755 })
    mkdirSync(join(base, 'src'))
    writeFileSync(join(base, 'src', 'data.txt'), 'private data\n')
    chmodSync(dir, 0o755)
    chmodSync(base, 0o755)
    chmodSync(join(base, 'data'), 0o755)
    const config = await writeDaemonConfig({
      dir: base,
      auth: false,
      jobs: [
        {
          name: 'dedup',
          sources: [{ type: 'local', name: 'f', path: join(base, 'src') }],
          storages: [{ type: 'restic', name: 'r', repository: join(base, 'repo'), password: 'modes test passphrase' }],
        },
      ] as unknown as DaemonJob[],
    })
    expect(await runWithUmask022(config, 'dedup')).to.equal(0)
    const listing = join(base, 'data', 'restic-listing')
    const listed = readdirSync(listing).map((name) => join(listing, name))
    expect(listed).to.have.length(1)
    expect(modeOf(listing).toString(8)).to.equal('700')
    for (const file of [...listed, join(base, 'data', 'daemon-id')]) {
      expect(modeOf(file).toString(8), file).to.equal('600')
      // What a local user tried: read the run names and sizes, or the id.
      expect(spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'cat', file]).status, file).to.not.equal(0)
    }
  })

  it('a held lock file is 0600 in a 0700 folder', () => {
    const locks = new RunLock(join(dir, 'lockdata'))
    const old = process.umask(0o022)
    try {
      expect(locks.acquire('j')).to.equal(true)
    } finally {
      process.umask(old)
    }
    expect(modeOf(join(dir, 'lockdata', 'locks')).toString(8)).to.equal('700')
    expect(modeOf(join(dir, 'lockdata', 'locks', 'j.lock')).toString(8)).to.equal('600')
    locks.release('j')
  })

  it('the systemd unit sets UMask=0077', () => {
    const unit = readFileSync(new URL('../../systemd/backup-daemon.service', import.meta.url), 'utf8')
    expect(unit).to.match(/^UMask=0077$/m)
  })
})
