/**
 * @module test/config/checkPaths
 * Issue 24 #13: `check-config` looks at the machine too. Run by `nobody` (setpriv; needs root), it names a
 * local source folder that does not exist and a data folder and a local storage path it cannot write, with
 * their lines; the shipped server example (`examples/server.yaml`) passes once its folders exist.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { assertReadableBy } from '../support/readableBy.js'
import { daemonBin } from '../support/runCli.js'

function checkConfigAs(user: string | undefined, file: string, env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const args = [daemonBin, 'check-config', '--config', file]
  const child = user
    ? spawn('setpriv', [`--reuid=${user}`, '--regid=nogroup', '--clear-groups', process.execPath, ...args], { env: { ...process.env, ...env } })
    : spawn(process.execPath, args, { env: { ...process.env, ...env } })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })))
}

describe('check-config: the paths on this machine (issue 24 #13)', function () {
  this.timeout(60_000)
  let dir: string
  before(function () {
    if (process.getuid?.() !== 0) throw new Error('needs root (setpriv to check as nobody)')
    assertReadableBy('nobody', daemonBin)
    dir = mkdtempSync(join(tmpdir(), 'bd-paths-'))
    chmodSync(dir, 0o755)
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('names a missing source folder and the data and storage folders nobody cannot write', async () => {
    const rootOnly = join(dir, 'root-only')
    mkdirSync(rootOnly, { mode: 0o755 })
    const file = join(dir, 'bad.yaml')
    writeFileSync(
      file,
      [
        `dataDir: ${rootOnly}/state`,
        'jobs:',
        '  - name: site',
        '    sources:',
        '      - type: local',
        `        path: ${dir}/no-such-folder`,
        '    storages:',
        '      - type: local',
        '        name: disk',
        `        path: ${rootOnly}/snapshots`,
        '',
      ].join('\n'),
      { mode: 0o644 },
    )
    const { code, out } = await checkConfigAs('nobody', file)
    expect(code, out).to.equal(1)
    expect(out).to.include(`bad.yaml:1:10 dataDir: ${rootOnly}/state cannot be created: ${rootOnly} is not writable by user nobody`)
    expect(out).to.include(`bad.yaml:6:15 jobs[0].sources[0].path: ${dir}/no-such-folder does not exist: the job would fail; fix the path`)
    expect(out).to.include(`bad.yaml:10:15 jobs[0].storages[0].path: ${rootOnly}/snapshots cannot be created: ${rootOnly} is not writable by user nobody`)
    expect(out).not.to.include('config OK')
  })

  it('reports a missing folder in the same pass as the schema errors, and a restic folder repository that cannot be created (issue 38)', async () => {
    const rootOnly = join(dir, 'root-only-2')
    mkdirSync(rootOnly, { mode: 0o755 })
    const file = join(dir, 'both.yaml')
    writeFileSync(
      file,
      [
        `dataDir: ${dir}/state-of-nobody`,
        'jobs:',
        '  - name: site',
        '    compression: tar.rar',
        '    sources:',
        '      - type: local',
        '        path: ./not-here',
        '    storages:',
        '      - type: restic',
        '        name: dedup',
        `        repository: ${rootOnly}/restic`,
        '        password: p',
        '      - type: restic',
        '        name: remote',
        '        repository: sftp:backup@127.0.0.1:/srv/restic',
        '        password: p',
        '',
      ].join('\n'),
      { mode: 0o644 },
    )
    mkdirSync(join(dir, 'state-of-nobody'))
    chmodSync(join(dir, 'state-of-nobody'), 0o777)
    const { code, out } = await checkConfigAs('nobody', file)
    expect(code, out).to.equal(1)
    expect(out).to.match(/both\.yaml:4:\d+ jobs\[0\]\.compression: /)
    // Relative to the file, as the loader resolves it.
    expect(out).to.include(`both.yaml:7:15 jobs[0].sources[0].path: ${dir}/not-here does not exist: the job would fail; fix the path`)
    expect(out).to.include(`both.yaml:11:21 jobs[0].storages[0].repository: ${rootOnly}/restic cannot be created: ${rootOnly} is not writable by user nobody`)
    // A backend's location is no folder of this machine.
    expect(out).not.to.include('storages[1]')
  })

  it('passes the shipped server example once its folders exist for the service user', async () => {
    const example = fileURLToPath(new URL('../../examples/server.yaml', import.meta.url))
    const config = parse(await import('node:fs').then((fs) => fs.readFileSync(example, 'utf8'))) as Record<string, unknown>
    expect(config.dataDir).to.equal('/var/lib/backup-daemon')
    expect((config.server as { auth: { enabled: boolean } }).auth.enabled).to.equal(true)
    // As root (who can write /var/lib) with the env file's variables: the README's install runs it as the service user.
    const { code, out } = await checkConfigAs(undefined, example, { BACKUP_DAEMON_PASSWORD: 'scrypt$x', BACKUP_DAEMON_SECRET: 's' })
    expect(code, out).to.equal(0)
    expect(out).to.include('config OK: 1 job(s)')
  })
})
