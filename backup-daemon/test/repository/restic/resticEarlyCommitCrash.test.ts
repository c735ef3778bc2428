/**
 * @module test/repository/restic/resticEarlyCommitCrash
 * A daemon killed while its early commit waits (`earlyCommit.ts`): the daemon and the folder's restic are
 * killed, the commit's restic lives on and may read the end of its stdin and save a commit snapshot before
 * the folder's snapshot exists (or die of SIGPIPE writing to the gone daemon). That run must not be listed (`groupRuns`: a commit counts only with every
 * source it names), and the next run removes it as a leftover and succeeds.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { resticJson, type ResticTarget } from '../../../src/repository/restic/resticProcess.js'
import { tempDir, waitFor } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { runCli } from '../../support/runCli.js'
import { inGroup, spawnInGroup } from './support/killedRun.js'
import { requireRestic } from '../../support/requireRestic.js'

describe('restic storage: kill -9 while the early commit waits', function () {
  this.timeout(240_000)
  let tmp: { dir: string; remove(): Promise<void> }
  const env = { RESTIC_TEST_PASSWORD: 'early commit crash' }
  const target = (): ResticTarget => ({ repository: join(tmp.dir, 'repo'), password: env.RESTIC_TEST_PASSWORD, cacheDir: join(tmp.dir, 'cache') })
  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-early-')
  })
  after(() => tmp?.remove())

  it('a run killed while its early commit waits is never listed; the next run succeeds and removes what it left', async () => {
    await mkdir(join(tmp.dir, 'src'))
    const fill = async () => {
      for (let i = 0; i < 10; i++) await writeFile(join(tmp.dir, 'src', `blob-${i}.bin`), randomBytes(16 << 20))
    }
    await fill()
    const file = await writeDaemonYaml(
      tmp.dir,
      `  - name: early\n    sources: [{ type: local, name: files, path: ./src }]\n    storages: [{ type: restic, name: dedup, repository: ./repo, password: env:RESTIC_TEST_PASSWORD }]\n`,
    )
    const first = await runCli(['run', 'early', '--config', file], { cwd: tmp.dir, env })
    expect(first.code, first.out).to.equal(0)
    // New content: the next run's folder backup takes seconds, its commit (predicted from the first run) waits.
    await fill()
    const { group, exited } = spawnInGroup(['run', 'early', '--config', file], { cwd: tmp.dir, env })
    await waitFor(() => inGroup(group, '--stdin-filename').length > 0 && inGroup(group, join(tmp.dir, 'src')).length > 0, 60_000, 'both restic commands')
    await new Promise((resolve) => setTimeout(resolve, 500))
    // The daemon and the folder's restic die; the commit's restic is left to itself.
    for (const pid of [group, ...inGroup(group, join(tmp.dir, 'src'))]) process.kill(pid, 'SIGKILL')
    await exited
    await waitFor(() => inGroup(group, 'restic').length === 0, 30_000, 'the commit restic ending')

    // The orphaned commit saves itself on its stdin's end, unless its first write to the gone daemon's stdout
    // (a status line) killed it first (SIGPIPE): either way the killed run must not be listed.
    const commits = await resticJson<{ tags: string[] }[]>(target(), ['snapshots', '--no-lock', '--tag', 'commit'])
    expect(commits.length).to.be.within(1, 2)
    const listed = await runCli(['snapshots', 'early', '--json', '--config', file], { cwd: tmp.dir, env })
    expect(listed.code, listed.out).to.equal(0)
    expect(listed.out.trim().split('\n')).to.have.length(1)

    const next = await runCli(['run', 'early', '--config', file], { cwd: tmp.dir, env })
    expect(next.code, next.out).to.equal(0)
    // The orphaned commit, when it saved itself, is what the next run forgets.
    if (commits.length === 2) expect(next.out).to.match(/removed \d+ object\(s\) left by an unfinished run/)
    const after = await resticJson<{ tags: string[] }[]>(target(), ['snapshots', '--no-lock', '--tag', 'commit'])
    expect(after).to.have.length(2)
    const again = await runCli(['snapshots', 'early', '--json', '--config', file], { cwd: tmp.dir, env })
    expect(again.out.trim().split('\n')).to.have.length(2)
    const verify = await runCli(['verify', 'early', '--config', file], { cwd: tmp.dir, env })
    expect(verify.code, verify.out).to.equal(0)
  })
})
