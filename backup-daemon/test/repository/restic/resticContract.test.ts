/**
 * @module test/repository/restic/resticContract
 * The repository contract (`test/support/runRepositorySuite.ts`) for restic repositories (issue 27), with
 * the real `restic` binary, on a local repository, over SFTP (the suite's sshd) and on S3 (s3rver over
 * HTTPS). What a killed run leaves is a source snapshot of a run with no commit (what `kill -9` between
 * two sources leaves).
 */
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { loadConfig } from '../../../src/config/loadConfig.js'
import type { JobConfig } from '../../../src/config/types.js'
import { openJobRepository } from '../../../src/repository/jobRepository.js'
import { restic } from '../../../src/repository/restic/resticProcess.js'
import { runName, runTags, tagArgs } from '../../../src/repository/restic/resticRuns.js'
import { daemonId, targetOf } from '../../../src/repository/restic/resticSession.js'
import type { ResticStorageConfig } from '../../../src/storages/restic/index.js'
import { tempDir } from '../../engine/helpers.js'
import { runRepositorySuite } from '../../support/runRepositorySuite.js'
import { startSshServer, type SshServer } from '../../support/sshServer.js'
import { startTlsS3rver, type TlsS3 } from './support/s3rverTls.js'
import { requireRestic } from '../../support/requireRestic.js'

/** A job `name` whose one storage entry is `storage` (YAML). */
async function jobWith(dir: string, name: string, storage: string): Promise<JobConfig> {
  const file = join(dir, `${name}.yaml`)
  await writeFile(
    file,
    `dataDir: ./data\njobs:\n  - name: ${name}\n    sources:\n      - { type: local, name: files, path: ./src }\n    storages:\n      - ${storage}\n`,
  )
  return (await loadConfig(file)).jobs[0]!
}

/** What `kill -9` of a run between its sources leaves: a source's snapshot, tagged with the run, and no commit. */
export async function leaveResticLeftovers(job: JobConfig, dataDir: string): Promise<void> {
  const entry = job.storages[0] as ResticStorageConfig
  const tags = runTags({ job: job.name, daemon: await daemonId(dataDir) }, runName(job.name, new Date('2026-01-15T00:00:00Z')))
  await restic(targetOf(entry, dataDir), ['backup', '--stdin', '--stdin-filename', 'files.tar', ...tagArgs([...tags, 'source=files', 'dump'])], {
    stdin: Readable.from([Buffer.from('half a dump')]),
  })
  // As a killed run does: its write dropped the daemon's kept listing before it started (`listingCache.ts`).
  await rm(join(dataDir, 'restic-listing'), { recursive: true, force: true })
}

describe('repository contract: restic', function () {
  this.timeout(120_000)
  let tmp: { dir: string; remove(): Promise<void> }
  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-contract-')
  })
  after(() => tmp.remove())

  describe('on a local repository', () => {
    const dataDir = () => join(tmp.dir, 'data')
    runRepositorySuite({
      newJob: (name) =>
        jobWith(tmp.dir, name, `{ type: restic, name: dedup, repository: ${join(tmp.dir, `repo-${name}`)}, password: "correct horse battery" }`),
      open: (job) => openJobRepository(job, { dataDir: dataDir() }),
      leaveLeftovers: (job) => leaveResticLeftovers(job, dataDir()),
    })
  })

  describe("on an SFTP repository (the suite's throwaway sshd, restic's sftp.command)", () => {
    let ssh: SshServer
    before(async () => {
      ssh = await startSshServer()
    })
    after(() => ssh?.stop())
    const dataDir = () => join(tmp.dir, 'data-sftp')
    runRepositorySuite({
      newJob: (name) => {
        const command = `ssh -p ${ssh.port} -i ${ssh.clientKey} -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile=${ssh.knownHosts} -o StrictHostKeyChecking=yes ${ssh.username}@127.0.0.1 -s sftp`
        const params = JSON.stringify(['-o', `sftp.command=${command}`])
        return jobWith(
          tmp.dir,
          name,
          `{ type: restic, name: remote, repository: "sftp:${ssh.username}@127.0.0.1:${ssh.root}/restic-${name}", password: "sftp pass", extraParams: ${params} }`,
        )
      },
      open: (job) => openJobRepository(job, { dataDir: dataDir() }),
      leaveLeftovers: (job) => leaveResticLeftovers(job, dataDir()),
    })
  })

  describe('on an S3 repository (s3rver over HTTPS, --cacert)', () => {
    let s3: TlsS3
    before(async () => {
      s3 = await startTlsS3rver()
    })
    after(() => s3?.close())
    const dataDir = () => join(tmp.dir, 'data-s3')
    runRepositorySuite({
      newJob: (name) =>
        jobWith(
          tmp.dir,
          name,
          `{ type: restic, name: s3, repository: "s3:${s3.endpoint}/${s3.bucket}/${name}", password: "s3 pass", env: { AWS_ACCESS_KEY_ID: ${s3.accessKeyId}, AWS_SECRET_ACCESS_KEY: ${s3.secretAccessKey} }, extraParams: ["--cacert", "${s3.certFile}"] }`,
        ),
      open: (job) => openJobRepository(job, { dataDir: dataDir() }),
      leaveLeftovers: (job) => leaveResticLeftovers(job, dataDir()),
    })
  })
})
