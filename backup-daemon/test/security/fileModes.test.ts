/**
 * Snapshots, state and locks are the owner's only, whatever the umask: after a real
 * `backup-daemon run` (umask 022, the usual default) every file the run created in the local storage is
 * 0600 and every folder 0700, `state.json` is 0600; a held lock file is 0600 in a 0700 folder. The
 * systemd unit sets `UMask=0077` for everything else.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RunLock } from '../../src/engine/RunLock.js'
import { writeDaemonConfig } from '../ui/support/realDaemon.js'

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
