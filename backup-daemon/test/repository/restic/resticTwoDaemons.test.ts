/**
 * @module test/repository/restic/resticTwoDaemons
 * Two daemons (two data folders, the same job name) backing up into one S3 repository (s3rver over HTTPS)
 * at the same time (once the repository exists), with retention: every run of both succeeds (restic's own locks; a prune of one waits
 * for the other's backup and the other way round), and each daemon lists only its own snapshots.
 * And the moment that failed in CI: another process's exclusive lock (the other daemon's commit) taken
 * between a backup and the listing that sizes it; the listing waits for it as the backup does.
 */
import { expect } from 'chai'
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { resticJson, type ResticTarget } from '../../../src/repository/restic/resticProcess.js'
import { makeTree, tempDir } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { runCli } from '../../support/runCli.js'
import { startTlsS3rver, type TlsS3 } from './support/s3rverTls.js'
import { requireRestic } from '../../support/requireRestic.js'

const Database = createRequire(import.meta.url)('libsql') as new (path: string) => { exec(sql: string): void; close(): void }

describe('restic storage: two daemons on one S3 repository', function () {
  this.timeout(300_000)
  let tmp: { dir: string; remove(): Promise<void> }
  let s3: TlsS3
  const env = { RESTIC_TEST_PASSWORD: 'shared repository passphrase' }
  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-two-')
    s3 = await startTlsS3rver('shared-repo')
  })
  after(async () => {
    await s3?.close()
    await tmp?.remove()
  })

  it('both succeed, twice, and each lists only its own runs', async () => {
    const repository = `s3:${s3.endpoint}/${s3.bucket}/restic`
    const daemons = ['one', 'two'].map((name) => join(tmp.dir, name))
    for (const dir of daemons) {
      await makeTree(join(dir, 'src'))
      const db = new Database(join(dir, 'app.db'))
      db.exec(`CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('${dir}')`)
      db.close()
      await mkdir(join(dir, 'data'), { recursive: true })
      await writeFile(
        join(dir, 'backup-daemon.yaml'),
        `dataDir: ./data
jobs:
  - name: site
    retention: { last: 1 }
    sources:
      - { type: local, name: files, path: ./src }
      - { type: sqlite, name: db, path: ./app.db }
    storages:
      - type: restic
        name: shared
        repository: ${repository}
        password: env:RESTIC_TEST_PASSWORD
        env: { AWS_ACCESS_KEY_ID: ${s3.accessKeyId}, AWS_SECRET_ACCESS_KEY: ${s3.secretAccessKey} }
        extraParams: ["--cacert", "${s3.certFile}"]
`,
      )
    }
    const cli = (dir: string, ...args: string[]) => runCli([...args, '--config', join(dir, 'backup-daemon.yaml')], { cwd: dir, env })
    // The first run creates the repository: S3 has no atomic create, so two daemons must not both
    // initialise one at the same moment (README); from then on they run at the same time.
    const created = await cli(daemons[0]!, 'run', 'site')
    expect(created.code, created.out).to.equal(0)
    let last: string[] = []
    for (let round = 0; round < 2; round++) {
      const runs = await Promise.all(daemons.map((dir) => cli(dir, 'run', 'site')))
      for (const run of runs) expect(run.code, run.out).to.equal(0)
      last = runs.map((run) => /committed (site-\S+)/.exec(run.out)?.[1] ?? `no commit in: ${run.out}`)
    }
    const listings = await Promise.all(daemons.map(async (dir) => (await cli(dir, 'snapshots', 'site', '--json')).out.trim().split('\n').filter(Boolean)))
    // Each lists the run it committed last (retention kept one). Names are times to the millisecond, so two daemons
    // started together may name their runs alike (seen in CI): which daemon wrote a run is its tag, checked below.
    expect(listings.map((lines) => lines.map((line) => (JSON.parse(line) as { name: string }).name))).to.deep.equal(last.map((name) => [name]))
    const target: ResticTarget = {
      repository,
      password: env.RESTIC_TEST_PASSWORD,
      env: { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey },
      extraParams: ['--cacert', s3.certFile],
      cacheDir: join(tmp.dir, 'cache'),
    }
    const all = await resticJson<{ tags: string[] }[]>(target, ['snapshots', '--no-lock'])
    // One run per daemon kept: two sources each (the commit on the second), tagged with two daemon ids.
    expect(all).to.have.length(4)
    expect(new Set(all.map((s) => s.tags.find((t) => t.startsWith('daemon='))))).to.have.property('size', 2)
  })

  it('an exclusive lock taken between a backup and its listing (a commit or a check elsewhere): the run and a restore wait for it', async () => {
    const dir = join(tmp.dir, 'held-between')
    await makeTree(join(dir, 'src'))
    // restic check (an exclusive lock in restic 0.14) started when restic find is about to run, stopped once its
    // lock is written, and let go 7 s later: the find meets the lock, as one daemon's listing met the other's `restic tag`.
    const wrapper = join(dir, 'restic-locked-before-find')
    await writeFile(
      wrapper,
      `#!/bin/sh
if [ "$1" = find ] && [ ! -e "${dir}/held" ]; then
  touch "${dir}/held"
  restic check --read-data >/dev/null 2>&1 &
  check=$!
  while [ -z "$(ls "$RESTIC_REPOSITORY/locks" 2>/dev/null)" ] && kill -0 $check 2>/dev/null; do :; done
  # Written whole (restic waits 200 ms after writing its lock before it looks at others'), then stopped.
  sleep 0.1
  kill -STOP $check
  (sleep 7; kill -CONT $check) >/dev/null 2>&1 &
fi
exec restic "$@"
`,
    )
    await chmod(wrapper, 0o755)
    const file = await writeDaemonYaml(
      dir,
      `  - name: site
    sources: [{ type: local, name: files, path: ./src }]
    storages: [{ type: restic, name: dedup, repository: ./repo, password: env:RESTIC_TEST_PASSWORD, binary: ${JSON.stringify(wrapper)} }]
`,
    )
    const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: dir, env })
    const run = await cli('run', 'site')
    expect(run.code, run.out).to.equal(0)
    // The wrapper held the lock, and restic check wrote it: the find met it.
    await readFile(join(dir, 'held'))
    const [name] = (await cli('snapshots', 'site', '--json')).out
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { name: string }).name)
    await rm(join(dir, 'held'))
    const restore = await cli('restore', 'site', name!, '--to', './back')
    expect(restore.code, restore.out).to.equal(0)
    await readFile(join(dir, 'held'))
    expect(await readFile(join(dir, 'back/files/readme.txt'), 'utf8')).to.equal(await readFile(join(dir, 'src/readme.txt'), 'utf8'))
  })
})
