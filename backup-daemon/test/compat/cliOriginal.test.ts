/**
 * The real `backup-daemon` binary on a storage the original service wrote (tar.gz, split with
 * `split -a 3`): `verify` and `restore --to` accept a whole one, refuse one with a missing part with a
 * clear message, and write nothing for it.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { access, mkdir, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tempDir } from '../engine/helpers.js'
import { makeFiles, snapshotOfFiles } from './support/compatFixture.js'
import { writeOriginal } from './support/originalSnapshots.js'

const bin = fileURLToPath(new URL('../../bin/backup-daemon.js', import.meta.url))

function cli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '' } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

describe("compat: backup-daemon verify/restore on the original service's storage (child processes)", function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  after(() => tmp.remove())

  it('verifies and restores a split tar.gz set; refuses one with a missing part', async () => {
    tmp = await tempDir('bd-compat-cli-')
    const sources = join(tmp.dir, 'snapr-sources')
    await makeFiles(join(sources, 'local_1'))
    await mkdir(join(tmp.dir, 'live'))
    const store = join(tmp.dir, 'store')
    const good = await writeOriginal({ store, job: 'legacy', sources, at: new Date('2026-02-01T03:00:00Z'), compression: 'tar.gz', chunkSize: 70_000 })
    const bad = await writeOriginal({ store, job: 'legacy', sources, at: new Date('2026-02-02T03:00:00Z'), compression: 'tar.gz', chunkSize: 70_000 })
    await unlink(join(bad.dir, bad.wrapper!, bad.parts[0]!))
    const file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(
      file,
      `dataDir: ./data
jobs:
  - name: legacy
    compression: tar.gz
    sources: [{ type: local, name: files, path: ./live }]
    storages: [{ type: local, name: disk, path: ./store }]
`,
    )
    const verified = await cli(['verify', 'legacy', good.name, '--config', file], tmp.dir)
    expect(verified.code, verified.stdout + verified.stderr).to.equal(0)
    expect(verified.stdout).to.include(`storage "disk": ${good.name}: OK (${good.parts.length} part(s)`)
    const to = join(tmp.dir, 'restored')
    const restored = await cli(['restore', 'legacy', good.name, '--config', file, '--to', to], tmp.dir)
    expect(restored.code, restored.stdout + restored.stderr).to.equal(0)
    expect(await snapshotOfFiles(join(to, 'local_1'))).to.deep.equal(await snapshotOfFiles(join(sources, 'local_1')))

    const newest = await cli(['verify', 'legacy', '--config', file], tmp.dir)
    expect(newest.code, 'the newest is the damaged one').to.equal(1)
    expect(newest.stderr).to.include(`${bad.name}: damaged: 1 of ${bad.parts.length} part(s) missing`)
    const refusedTo = join(tmp.dir, 'refused')
    const refused = await cli(['restore', 'legacy', bad.name, '--config', file, '--to', refusedTo], tmp.dir)
    expect(refused.code).to.equal(1)
    expect(refused.stderr).to.include(`no storage holds an intact copy of ${bad.name}`)
    expect(
      await access(refusedTo).then(
        () => true,
        () => false,
      ),
    ).to.equal(false)
  })
})
