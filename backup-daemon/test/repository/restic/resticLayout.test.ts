/**
 * @module test/repository/restic/resticLayout
 * What a restic user sees of the daemon's runs (issue 42), on a local repository, over SFTP (the suite's
 * sshd) and on S3 (s3rver over HTTPS), with the plain restic CLI: one snapshot per source per run, each
 * tagged with the run and its count of sources, the commit on the last source's snapshot; `restic restore
 * latest` (with and without `--path`) restores real data. The daemon lists, restores and drills the same
 * runs. Locally also: a run killed before and after its commit, the untagged original a killed
 * `restic tag` leaves beside its copy, and a repository written the old way (a commit snapshot of its own).
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { restic, resticJson, resticStream, type ResticTarget } from '../../../src/repository/restic/resticProcess.js'
import { commitFilename, runName, runTags, tagArgs } from '../../../src/repository/restic/resticRuns.js'
import { daemonId } from '../../../src/repository/restic/resticSession.js'
import { makeTree, tempDir, waitFor } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { requireRestic } from '../../support/requireRestic.js'
import { runCli } from '../../support/runCli.js'
import { startSshServer, type SshServer } from '../../support/sshServer.js'
import { execSqlite } from '../../support/sqliteDb.js'
import { inGroup, spawnInGroup } from './support/killedRun.js'
import { startTlsS3rver, type TlsS3 } from './support/s3rverTls.js'
import { treeOf } from './support/treeOf.js'

interface Snapshot {
  id: string
  paths: string[]
  tags: string[]
}

const password = 'layout test passphrase'
const env = { RESTIC_TEST_PASSWORD: password }

/** A job `site` of a database (a dump) and a folder into the restic storage `storage` (YAML), and its plain-restic target. */
async function siteIn(dir: string, storage: string, target: ResticTarget, binary?: string) {
  const fresh = await readFile(join(dir, 'app.db')).then(
    () => false,
    () => true,
  )
  if (fresh) {
    execSqlite(join(dir, 'app.db'), "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('one')")
    await makeTree(join(dir, 'src'))
  }
  const file = await writeDaemonYaml(
    dir,
    `  - name: site
    retention: { last: 3 }
    sources:
      - { type: sqlite, name: db, path: ./app.db }
      - { type: local, name: files, path: ./src }
    storages:
      - ${storage.replace(/}$/, `${binary ? `, binary: ${JSON.stringify(binary)}` : ''} }`)}
`,
    binary ? 'held.yaml' : 'backup-daemon.yaml',
  )
  const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: dir, env })
  const ok = async (...args: string[]) => {
    const result = await cli(...args)
    expect(result.code, result.out).to.equal(0)
    return result.out
  }
  const listed = async () =>
    (await ok('snapshots', 'site', '--json'))
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { name: string; size: number })
  const snapshots = () => resticJson<Snapshot[]>(target, ['snapshots', '--no-lock'])
  return { file, cli, ok, listed, snapshots }
}

/** Two runs, then what plain restic and the daemon read of them. */
async function plainResticReads(dir: string, storage: string, target: ResticTarget): Promise<void> {
  const site = await siteIn(dir, storage, target)
  await site.ok('run', 'site')
  await writeFile(join(dir, 'src/second.txt'), 'the second run\n')
  await site.ok('run', 'site')

  const snapshots = await site.snapshots()
  // One row per source per run, each saying how many rows make its run; one commit per run, on its last source.
  expect(snapshots).to.have.length(4)
  for (const snapshot of snapshots) expect(snapshot.tags).to.include('sources=2')
  const commits = snapshots.filter((s) => s.tags.includes('commit'))
  expect(commits.map((s) => s.tags.find((t) => t.startsWith('source=')))).to.deep.equal(['source=files', 'source=files'])
  expect(snapshots.flatMap((s) => s.paths)).to.not.include(`/${commitFilename}`)

  // The first command a restic user types restores the newest folder; --path picks the dump.
  await restic(target, ['restore', 'latest', '--target', join(dir, 'plain')])
  expect(await treeOf(join(dir, 'plain', dir, 'src'))).to.deep.equal(await treeOf(join(dir, 'src')))
  await restic(target, ['restore', 'latest', '--path', '/db.tar', '--target', join(dir, 'plain-db')])
  const dump = await readFile(join(dir, 'plain-db', 'db.tar'))
  expect(dump.subarray(0, 100).toString('latin1')).to.match(/^db/)
  expect(dump.includes(Buffer.from('SQLite format 3'))).to.equal(true)
  // As the README writes it: `restic dump latest --path /db.tar /db.tar | tar -x`.
  const dumped = await restic(target, ['dump', 'latest', '--path', '/db.tar', '/db.tar'])
  expect(Buffer.from(dumped, 'latin1').length).to.be.greaterThan(0)
  expect(dumped.startsWith('db')).to.equal(true)

  // The daemon's view of the same runs.
  const listed = await site.listed()
  expect(listed).to.have.length(2)
  await site.ok('restore', 'site', listed[0]!.name, '--to', join(dir, 'restored'))
  expect(await treeOf(join(dir, 'restored', 'files'))).to.deep.equal(await treeOf(join(dir, 'src')))
  await site.ok('verify', 'site')
  // The drill restores as a restore does: the folder by restic restore, the dump through the tar path (its record read).
  const drill = await site.ok('drill', 'site')
  expect(drill).to.include('into the scratch folder with restic restore (each folder source) and the tar path (each dump source)')
  expect(drill).to.match(/restore proven/)
  expect(drill).to.match(/source "db" \(sqlite\): /)
}

describe('restic storage: the layout plain restic reads', function () {
  this.timeout(300_000)
  let tmp: { dir: string; remove(): Promise<void> }
  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-layout-')
  })
  after(() => tmp?.remove())

  const local = (dir: string) => ({
    storage: `{ type: restic, name: dedup, repository: ./repo, password: env:RESTIC_TEST_PASSWORD }`,
    target: { repository: join(dir, 'repo'), password, cacheDir: join(dir, 'cache') } satisfies ResticTarget,
  })

  it('on a local repository: one snapshot per source per run, restic restore latest restores data, the daemon reads them', async () => {
    const dir = join(tmp.dir, 'local')
    await mkdir(dir)
    const { storage, target } = local(dir)
    await plainResticReads(dir, storage, target)
  })

  it('over SFTP: the same', async () => {
    let ssh: SshServer | undefined
    try {
      ssh = await startSshServer()
      const dir = join(tmp.dir, 'sftp')
      await mkdir(dir)
      const command = `ssh -p ${ssh.port} -i ${ssh.clientKey} -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile=${ssh.knownHosts} -o StrictHostKeyChecking=yes ${ssh.username}@127.0.0.1 -s sftp`
      const repository = `sftp:${ssh.username}@127.0.0.1:${ssh.root}/restic-layout`
      const params = JSON.stringify(['-o', `sftp.command=${command}`])
      const storage = `{ type: restic, name: remote, repository: "${repository}", password: env:RESTIC_TEST_PASSWORD, extraParams: ${params} }`
      await plainResticReads(dir, storage, { repository, password, cacheDir: join(dir, 'cache'), extraParams: ['-o', `sftp.command=${command}`] })
    } finally {
      await ssh?.stop()
    }
  })

  it('on S3: the same', async () => {
    let s3: TlsS3 | undefined
    try {
      s3 = await startTlsS3rver()
      const dir = join(tmp.dir, 's3')
      await mkdir(dir)
      const repository = `s3:${s3.endpoint}/${s3.bucket}/layout`
      const keys = { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey }
      const storage = `{ type: restic, name: s3, repository: "${repository}", password: env:RESTIC_TEST_PASSWORD, env: ${JSON.stringify(keys)}, extraParams: ["--cacert", "${s3.certFile}"] }`
      await plainResticReads(dir, storage, { repository, password, cacheDir: join(dir, 'cache'), env: keys, extraParams: ['--cacert', s3.certFile] })
    } finally {
      await s3?.close()
    }
  })

  /** A `binary:` wrapper that, for the restic command `command` (its first argument), writes `<dir>/held` and waits, before or after running it. */
  async function holdingWrapper(dir: string, command: string, when: 'before' | 'after'): Promise<string> {
    const wrapper = join(dir, `restic-holding-${command}-${when}`)
    const hold = `if [ "$1" = ${command} ]; then touch ${JSON.stringify(join(dir, 'held'))}; sleep 600; fi`
    await writeFile(wrapper, when === 'before' ? `#!/bin/sh\n${hold}\nexec restic "$@"\n` : `#!/bin/sh\nrestic "$@"\ncode=$?\n${hold}\nexit $code\n`)
    await chmod(wrapper, 0o755)
    return wrapper
  }

  /** `run site` killed (-9, the whole group) while the wrapper holds. */
  async function killedWhileHeld(dir: string, file: string): Promise<void> {
    await rm(join(dir, 'held'), { force: true })
    const { group, exited } = spawnInGroup(['run', 'site', '--config', file], { cwd: dir, env })
    await waitFor(
      () =>
        readFile(join(dir, 'held')).then(
          () => true,
          () => false,
        ),
      120_000,
      'the wrapper holding',
    )
    process.kill(-group, 'SIGKILL')
    await exited
    await waitFor(() => inGroup(group, 'restic').length === 0, 10_000, 'restic killed')
  }

  it('kill -9 before the commit: the run is not listed; the next run removes what it left', async () => {
    const dir = join(tmp.dir, 'killed-before')
    await mkdir(dir)
    const { storage, target } = local(dir)
    const plain = await siteIn(dir, storage, target)
    await plain.ok('run', 'site')
    const held = await siteIn(dir, storage, target, await holdingWrapper(dir, 'tag', 'before'))
    await writeFile(join(dir, 'src/changed.txt'), 'changed\n')
    await killedWhileHeld(dir, held.file)
    // Both sources of the killed run are written; neither holds a commit.
    expect(await plain.snapshots()).to.have.length(4)
    expect(await plain.listed()).to.have.length(1)
    expect(await plain.ok('run', 'site')).to.match(/removed 2 object\(s\) left by an unfinished run/)
    expect(await plain.snapshots()).to.have.length(4)
    expect(await plain.listed()).to.have.length(2)
    await plain.ok('verify', 'site')
  })

  it('kill -9 after the commit, before the daemon learnt its id: the run is listed with its size and reads back', async () => {
    const dir = join(tmp.dir, 'killed-after')
    await mkdir(dir)
    const { storage, target } = local(dir)
    const plain = await siteIn(dir, storage, target)
    await plain.ok('run', 'site')
    const held = await siteIn(dir, storage, target, await holdingWrapper(dir, 'tag', 'after'))
    await writeFile(join(dir, 'src/changed.txt'), 'changed after\n')
    await killedWhileHeld(dir, held.file)
    const listed = await plain.listed()
    expect(listed).to.have.length(2)
    // verify reads the run's whole tar and compares it with the size the commit recorded.
    await plain.ok('verify', 'site')
    await plain.ok('restore', 'site', listed[0]!.name, '--to', join(dir, 'restored'))
    expect(await treeOf(join(dir, 'restored', 'files'))).to.deep.equal(await treeOf(join(dir, 'src')))
    await plain.ok('run', 'site')
    expect(await plain.listed()).to.have.length(3)
  })

  it('a lock a killed restic of this host left: the commit (an exclusive lock) removes it and the run succeeds', async () => {
    const dir = join(tmp.dir, 'stale-lock')
    await mkdir(dir)
    const { storage, target } = local(dir)
    const site = await siteIn(dir, storage, target)
    await site.ok('run', 'site')
    // A restic backup reading a stdin that never ends holds the repository's (shared) lock until it is killed.
    const held = spawn('restic', ['backup', '--stdin', '--stdin-filename', 'never.bin'], {
      env: { ...process.env, RESTIC_REPOSITORY: target.repository, RESTIC_PASSWORD: password },
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    held.stdin.write('a start')
    await waitFor(async () => (await restic(target, ['list', 'locks', '--no-lock'])).trim() !== '', 30_000, 'the lock')
    held.kill('SIGKILL')
    await new Promise((resolve) => held.once('exit', resolve))
    expect(await site.ok('run', 'site')).to.match(/committed site-/)
    expect((await restic(target, ['list', 'locks', '--no-lock'])).trim()).to.equal('')
    expect(await site.listed()).to.have.length(2)
  })

  it('the original a killed restic tag left beside its tagged copy: one run listed, the next cleanup removes it', async () => {
    const dir = join(tmp.dir, 'stray')
    await mkdir(dir)
    const { storage, target } = local(dir)
    const site = await siteIn(dir, storage, target)
    await site.ok('run', 'site')
    const [committed] = (await site.snapshots()).filter((s) => s.tags.includes('commit'))
    // What `restic tag` leaves when killed between saving the copy and removing the original: the same snapshot without the commit.
    const original = committed!.tags.filter((tag) => tag !== 'commit' && !/^(size|part)=/.test(tag))
    await restic(target, ['backup', ...tagArgs(original), join(dir, 'src')])
    await rm(join(dir, 'data/restic-listing'), { recursive: true, force: true })
    expect(await site.listed()).to.have.length(1)
    expect(await site.snapshots()).to.have.length(3)
    // The next command that cleans up (here verify's start-up cleanup, as a run's would) removes the original; the run reads back.
    await site.ok('verify', 'site')
    const left = await site.snapshots()
    expect(
      left.map((s) => s.id),
      JSON.stringify(left),
    ).to.have.members([committed!.id, ...left.filter((s) => s.tags.includes('dump')).map((s) => s.id)])
    await site.ok('run', 'site')
    expect(await site.snapshots()).to.have.length(4)
    expect(await site.listed()).to.have.length(2)
  })

  it('a repository written the old way (a commit snapshot of its own) lists, restores, drills, and takes new runs', async () => {
    const dir = join(tmp.dir, 'old-layout')
    await mkdir(dir)
    const { storage, target } = local(dir)
    const site = await siteIn(dir, storage, target)
    // The old layout, as the daemon wrote it before issue 42: the sources' snapshots, then `/.backup-daemon-run.json` tagged `commit`.
    await restic(target, ['init', '--repository-version', '2'])
    const name = runName('site', new Date('2026-11-01T02:00:00Z'))
    const tags = runTags({ job: 'site', daemon: await daemonId(join(dir, 'data')) }, name)
    await site.ok('run', 'site')
    const written = (await site.snapshots()).filter((s) => s.tags.includes('sources=2'))
    // The old run's parts: the sizes the new run recorded for the same content (the tar of a source does not depend on the layout).
    const commit = written.find((s) => s.tags.includes('commit'))!
    const parts = commit.tags.filter((tag) => /^(size|part)=/.test(tag))
    for (const snapshot of written) {
      const kept = snapshot.tags.filter((tag) => /^(source=|dump$)/.test(tag))
      if (kept.includes('dump'))
        await restic(target, ['backup', '--stdin', '--stdin-filename', 'db.tar', ...tagArgs([...tags, ...kept])], {
          stdin: Readable.from([await dumpOf(target, snapshot)]),
        })
      else await restic(target, ['backup', ...tagArgs([...tags, ...kept]), snapshot.paths[0]!])
    }
    await restic(target, ['backup', '--stdin', '--stdin-filename', commitFilename, ...tagArgs([...tags, 'commit', ...parts])], {
      stdin: Readable.from([Buffer.from(JSON.stringify({ job: 'site', run: name }))]),
    })
    // Only the old run is left: the new one is forgotten with plain restic, the daemon lists again.
    await restic(target, ['forget', ...written.map((s) => s.id)])
    await rm(join(dir, 'data/restic-listing'), { recursive: true, force: true })

    const listed = await site.listed()
    expect(listed.map((run) => run.name)).to.deep.equal([name])
    await site.ok('verify', 'site')
    await site.ok('restore', 'site', name, '--to', join(dir, 'restored'))
    expect(await treeOf(join(dir, 'restored', 'files'))).to.deep.equal(await treeOf(join(dir, 'src')))
    expect(await site.ok('drill', 'site')).to.match(/passed/i)
    // A new run on top of it (its folder snapshot the parent), and retention removes the old run's commit snapshot with it.
    await site.ok('run', 'site')
    await site.ok('run', 'site')
    await site.ok('run', 'site')
    const after = await site.listed()
    expect(after.map((run) => run.name)).to.not.include(name)
    expect((await site.snapshots()).flatMap((s) => s.paths)).to.not.include(`/${commitFilename}`)
  })
})

/** The dump a source snapshot holds (`/db.tar`), as bytes. */
async function dumpOf(target: ResticTarget, snapshot: Snapshot): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of resticStream(target, ['dump', snapshot.id, snapshot.paths[0]!])) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
