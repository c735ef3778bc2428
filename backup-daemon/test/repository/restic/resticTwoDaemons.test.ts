/**
 * @module test/repository/restic/resticTwoDaemons
 * Two daemons (two data folders, the same job name) backing up into one S3 repository (s3rver over HTTPS)
 * at the same time (once the repository exists), with retention: every run of both succeeds (restic's own locks; a prune of one waits
 * for the other's backup and the other way round), and each daemon lists only its own snapshots.
 */
import { expect } from 'chai'
import { mkdir, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { resticJson, type ResticTarget } from '../../../src/repository/restic/resticProcess.js'
import { makeTree, tempDir } from '../../engine/helpers.js'
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
    for (let round = 0; round < 2; round++) {
      const runs = await Promise.all(daemons.map((dir) => cli(dir, 'run', 'site')))
      for (const run of runs) expect(run.code, run.out).to.equal(0)
    }
    const listings = await Promise.all(daemons.map(async (dir) => (await cli(dir, 'snapshots', 'site', '--json')).out.trim().split('\n').filter(Boolean)))
    expect(listings.map((lines) => lines.length)).to.deep.equal([1, 1])
    expect(listings[0]![0]).to.not.equal(listings[1]![0])
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
})
