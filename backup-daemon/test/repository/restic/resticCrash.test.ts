/**
 * @module test/repository/restic/resticCrash
 * `kill -9` of a daemon (and of its restic: a power cut) in the middle of a run into a restic repository:
 * nothing partial is listed, restic's lock is left behind, and the next run succeeds: it forgets what the
 * killed run wrote and removes the stale lock, which is provably this host's and dead.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { restic, resticJson, type ResticTarget } from '../../../src/repository/restic/resticProcess.js'
import { tempDir, waitFor } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { runCli } from '../../support/runCli.js'
import { execSqlite } from '../../support/sqliteDb.js'
import { inGroup, spawnInGroup } from './support/killedRun.js'
import { requireRestic } from '../../support/requireRestic.js'

describe('restic storage: kill -9 in the middle of a run', function () {
  this.timeout(240_000)
  let tmp: { dir: string; remove(): Promise<void> }
  const env = { RESTIC_TEST_PASSWORD: 'crash test passphrase' }
  const target = (): ResticTarget => ({ repository: join(tmp.dir, 'repo'), password: env.RESTIC_TEST_PASSWORD, cacheDir: join(tmp.dir, 'cache') })
  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-crash-')
  })
  after(() => tmp?.remove())

  it('lists nothing partial, and the next run succeeds and removes the stale lock', async () => {
    // A database first (its snapshot is written), then a folder large enough to be killed in.
    execSqlite(join(tmp.dir, 'app.db'), "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('one')")
    await mkdir(join(tmp.dir, 'src'))
    for (let i = 0; i < 12; i++) await writeFile(join(tmp.dir, 'src', `blob-${i}.bin`), randomBytes(16 << 20))
    const file = await writeDaemonYaml(
      tmp.dir,
      `  - name: crash
    retention: { last: 5 }
    sources:
      - { type: sqlite, name: db, path: ./app.db }
      - { type: local, name: files, path: ./src }
    storages:
      - { type: restic, name: dedup, repository: ./repo, password: env:RESTIC_TEST_PASSWORD }
`,
    )
    await restic(target(), ['init', '--repository-version', '2'])
    const { group, exited } = spawnInGroup(['run', 'crash', '--config', file], { cwd: tmp.dir, env })
    await waitFor(() => inGroup(group, `${join(tmp.dir, 'src')}`).length > 0, 60_000, 'restic backing the folder up')
    await new Promise((resolve) => setTimeout(resolve, 1000))
    process.kill(-group, 'SIGKILL')
    await exited
    await waitFor(() => inGroup(group, 'restic').length === 0, 10_000, 'restic killed')

    const snapshots = await resticJson<{ tags: string[] }[]>(target(), ['snapshots', '--no-lock'])
    expect(snapshots.map((s) => s.tags.find((t) => t.startsWith('source=')))).to.deep.equal(['source=db'])
    expect((await restic(target(), ['list', 'locks', '--no-lock'])).trim()).to.not.equal('')
    const listed = await runCli(['snapshots', 'crash', '--json', '--config', file], { cwd: tmp.dir, env })
    expect(listed.code, listed.out).to.equal(0)
    expect(listed.out.trim()).to.equal('')

    const next = await runCli(['run', 'crash', '--config', file], { cwd: tmp.dir, env })
    expect(next.code, next.out).to.equal(0)
    expect(next.out).to.match(/removed 1 object\(s\) left by an unfinished run/)
    expect((await restic(target(), ['list', 'locks', '--no-lock'])).trim()).to.equal('')
    const after = await resticJson<{ tags: string[] }[]>(target(), ['snapshots', '--no-lock'])
    expect(after.filter((s) => s.tags.includes('commit'))).to.have.length(1)
    // One snapshot per source; the last (the folder) holds the commit.
    expect(after).to.have.length(2)
    expect(after.find((s) => s.tags.includes('commit'))?.tags).to.include.members(['source=files', 'sources=2'])
    const again = await runCli(['snapshots', 'crash', '--json', '--config', file], { cwd: tmp.dir, env })
    expect(again.out.trim().split('\n')).to.have.length(1)
  })
})
