/**
 * @module test/repository/restic/resticInvocations
 * What an unchanged run costs in restic commands (issue 27: each derives the repository key, ~0.3 s):
 * with the listing kept between runs (`listingCache.ts`), the backup of the folder, the commit (`restic tag`
 * on its snapshot) and the tagged copy's id (`snapshots`), no listing of the job, and no `forget` while
 * retention drops nothing. Counted through a `binary:` wrapper that logs each command's arguments and runs
 * the real restic. A listing cache removed (a run killed half-way leaves none) makes the next run list
 * again; a run that drops a snapshot forgets it and the listing after it is right.
 */
import { expect } from 'chai'
import { chmod, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { restic, resticJson } from '../../../src/repository/restic/resticProcess.js'
import { makeTree, tempDir } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { requireRestic } from '../../support/requireRestic.js'
import { runCli } from '../../support/runCli.js'

describe('restic storage: the commands of an unchanged run', function () {
  this.timeout(180_000)
  let tmp: { dir: string; remove(): Promise<void> }
  let file: string
  const calls = () => join(tmp.dir, 'calls.log')
  const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tmp.dir })
  /** The restic commands (first argument) of `run`, `version` left out (it reads no repository). */
  async function commandsOf(...args: string[]): Promise<string[]> {
    await writeFile(calls(), '')
    const result = await cli(...args)
    expect(result.code, result.out).to.equal(0)
    return (await readFile(calls(), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[0]!)
      .filter((command) => command !== 'version')
  }

  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-calls-')
    await makeTree(join(tmp.dir, 'src'))
    const wrapper = join(tmp.dir, 'restic-counting')
    await writeFile(wrapper, `#!/bin/sh\necho "$*" >> ${JSON.stringify(calls())}\nexec restic "$@"\n`)
    await chmod(wrapper, 0o755)
    file = await writeDaemonYaml(
      tmp.dir,
      `  - name: site
    retention: { last: 2 }
    sources: [{ type: local, name: files, path: ./src }]
    storages: [{ type: restic, name: dedup, repository: ./repo, password: calls-pass, binary: ${JSON.stringify(wrapper)} }]
`,
    )
  })
  after(() => tmp?.remove())

  it('an unchanged run: the backup and the commit only; listing the snapshots runs no restic command', async () => {
    expect(await commandsOf('run', 'site')).to.include('init')
    expect(await commandsOf('run', 'site')).to.deep.equal(['backup', 'tag', 'snapshots'])
    expect(await commandsOf('snapshots', 'site')).to.deep.equal([])
    // The unchanged run took the size the run before recorded: it holds.
    const verify = await cli('verify', 'site')
    expect(verify.code, verify.out).to.equal(0)
  })

  it('a changed folder: the commit holds the new size, one commit per run', async () => {
    await writeFile(join(tmp.dir, 'src/grown.txt'), 'x'.repeat(5000))
    const commands = await commandsOf('run', 'site')
    expect(commands.filter((c) => c === 'backup')).to.have.length(1)
    // Then the commit (retention, keeping 2, may forget after it).
    expect(commands.slice(commands.indexOf('backup') + 1)).to.include.members(['tag', 'snapshots'])
    const verify = await cli('verify', 'site')
    expect(verify.code, verify.out).to.equal(0)
    const commits = await resticJson<{ tags: string[] }[]>({ repository: join(tmp.dir, 'repo'), password: 'calls-pass', cacheDir: join(tmp.dir, 'cache') }, [
      'snapshots',
      '--no-lock',
      '--tag',
      'commit',
    ])
    // One commit per run, on the run's only snapshot: every snapshot holds one, and none is a separate file.
    expect(new Set(commits.map((c) => c.tags.find((t) => t.startsWith('run='))))).to.have.property('size', commits.length)
    const every = await resticJson<{ paths: string[] }[]>({ repository: join(tmp.dir, 'repo'), password: 'calls-pass', cacheDir: join(tmp.dir, 'cache') }, [
      'snapshots',
      '--no-lock',
    ])
    expect(every).to.have.length(commits.length)
    expect(every.map((snapshot) => snapshot.paths)).to.deep.equal(every.map(() => [join(tmp.dir, 'src')]))
  })

  it('a run that drops one by retention forgets it; the listing after it matches restic', async () => {
    const commands = await commandsOf('run', 'site')
    expect(commands.slice(0, 3)).to.deep.equal(['backup', 'tag', 'snapshots'])
    expect(commands).to.include('forget')
    const listed = (await cli('snapshots', 'site', '--json')).out.split('\n').filter(Boolean)
    expect(listed).to.have.length(2)
    const commits = await resticJson<unknown[]>({ repository: join(tmp.dir, 'repo'), password: 'calls-pass', cacheDir: join(tmp.dir, 'cache') }, [
      'snapshots',
      '--no-lock',
      '--tag',
      'commit',
    ])
    expect(commits).to.have.length(2)
  })

  it('without the kept listing (a run killed half-way leaves none) the next run lists first', async () => {
    await rm(join(tmp.dir, 'data/restic-listing'), { recursive: true, force: true })
    const commands = await commandsOf('run', 'site')
    expect(commands[0]).to.equal('snapshots')
    expect(commands).to.include('forget')
    // Retention drops one: this host's dead locks looked for once, then its one snapshot (the commit) with --prune.
    expect(await commandsOf('run', 'site')).to.deep.equal(['backup', 'tag', 'snapshots', 'list', 'forget'])
  })
  it('a snapshot removed by hand with plain restic: the next run backs up without it, and the listing after it matches restic', async () => {
    const target = { repository: join(tmp.dir, 'repo'), password: 'calls-pass', cacheDir: join(tmp.dir, 'cache') }
    const listedNames = async () =>
      (await cli('snapshots', 'site', '--json')).out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { name: string }).name)
    const [newest] = await listedNames()
    // The newest run's folder snapshot goes, as an operator's `restic forget <id>` would do it: the kept listing still names it.
    const folders = await resticJson<{ id: string; tags: string[] }[]>(target, ['snapshots', '--no-lock', '--tag', `run=${newest}`])
    const folder = folders.find((snapshot) => snapshot.tags.includes('source=files'))!
    await restic(target, ['forget', folder.id])
    const result = await cli('run', 'site')
    expect(result.code, result.out).to.equal(0)
    expect(result.out).to.include(`snapshot ${folder.id.slice(0, 8)} of source "files" is no longer in the repository`)
    const names = await listedNames()
    expect(names).to.not.include(newest)
    const commits = await resticJson<{ tags: string[] }[]>(target, ['snapshots', '--no-lock', '--tag', 'commit'])
    const complete = commits.map((c) => c.tags.find((t) => t.startsWith('run='))!.slice(4)).filter((run) => run !== newest)
    expect([...names].sort()).to.deep.equal(complete.sort())
    const verify = await cli('verify', 'site')
    expect(verify.code, verify.out).to.equal(0)
  })
  it('a listed run whose snapshot was removed by hand: its restore says so, and the next listing asks restic', async () => {
    const target = { repository: join(tmp.dir, 'repo'), password: 'calls-pass', cacheDir: join(tmp.dir, 'cache') }
    const [newest] = (await cli('snapshots', 'site', '--json')).out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { name: string }).name)
    const folders = await resticJson<{ id: string; tags: string[] }[]>(target, ['snapshots', '--no-lock', '--tag', `run=${newest}`])
    await restic(target, ['forget', folders.find((snapshot) => snapshot.tags.includes('source=files'))!.id])
    const restored = await cli('restore', 'site', newest!, '--to', join(tmp.dir, 'restored'))
    expect(restored.code).to.not.equal(0)
    expect(restored.out).to.include(`${newest}: a snapshot of this run is no longer in restic "dedup" (removed with plain restic?)`)
    expect(await commandsOf('snapshots', 'site')).to.deep.equal(['snapshots'])
    expect((await cli('snapshots', 'site', '--json')).out).to.not.include(newest)
  })
})
