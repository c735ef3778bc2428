/**
 * @module test/repository/repositoryContract
 * The repository contract (`test/support/runRepositorySuite.ts`) for the archive kind: on a local
 * storage built from the config (`openJobRepository`, `includeJobName` both ways) and on a remote
 * storage (the suite's WebDAV server, `rclone serve webdav`).
 */
import { Readable } from 'node:stream'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/loadConfig.js'
import type { JobConfig } from '../../src/config/types.js'
import { snapshotName } from '../../src/repository/archives/layout.js'
import { jobRepositoryOn, openJobRepository } from '../../src/repository/jobRepository.js'
import { createStorage } from '../../src/storages/all.js'
import type { Storage } from '../../src/storages/types.js'
import { webdavStorage } from '../../src/storages/webdav/index.js'
import { tempDir } from '../engine/helpers.js'
import { runRepositorySuite } from '../support/runRepositorySuite.js'
import { startWebdavServer, type WebdavServer } from '../support/webdavServer.js'
import { writeFile } from 'node:fs/promises'

const never = () => new AbortController().signal

/** What a run killed mid-write leaves: a temporary object, and a committed part of ours with no manifest. */
async function leaveArchiveLeftovers(storage: Storage, job: string, prefix: string): Promise<void> {
  await storage.write(job, Readable.from([Buffer.from('half an upload')]), never())
  const name = snapshotName(job, new Date('2026-01-15T00:00:00Z'), 'tar.gz')
  await (await storage.write(job, Readable.from([Buffer.from('a part')]), never())).commit(`${prefix}${name}.parts-2-12/${name}.part-aaa`)
}

/** A job `name` (tar.gz, split in 64 KiB parts) with one storage entry. */
async function jobWith(dir: string, name: string, storage: string): Promise<JobConfig> {
  const file = join(dir, `${name}.yaml`)
  await writeFile(
    file,
    `dataDir: ./data\njobs:\n  - name: ${name}\n    compression: tar.gz\n    split: { chunkSize: 65536 }\n    sources:\n      - { type: local, name: files, path: ./src }\n    storages:\n      - ${storage}\n`,
  )
  return (await loadConfig(file)).jobs[0]!
}

describe('repository contract: archives', function () {
  this.timeout(60_000)
  let tmp: { dir: string; remove(): Promise<void> }
  before(async () => {
    tmp = await tempDir()
  })
  after(() => tmp.remove())

  for (const includeJobName of [true, false]) {
    describe(`on a local storage (includeJobName: ${includeJobName})`, () => {
      runRepositorySuite({
        newJob: (name) => jobWith(tmp.dir, name, `{ type: local, name: disk, path: ./local-${includeJobName}, includeJobName: ${includeJobName} }`),
        open: (job) => openJobRepository(job),
        leaveLeftovers: (job) => leaveArchiveLeftovers(createStorage(job.storages[0]!), job.name, includeJobName ? `${job.name}/` : ''),
      })
    })
  }

  describe('on a WebDAV storage (rclone serve webdav)', () => {
    let server: WebdavServer
    before(async () => {
      server = await startWebdavServer()
    })
    after(() => server.stop())
    const storage = () =>
      webdavStorage.create(
        webdavStorage.configSchema.parse({
          type: 'webdav',
          name: 'dav',
          url: server.url,
          username: server.username,
          password: server.password,
          path: 'backups',
        }),
      )
    runRepositorySuite({
      newJob: (name) => jobWith(tmp.dir, name, `{ type: local, name: unused, path: ./unused }`),
      open: (job) => jobRepositoryOn(job, [storage()]),
      leaveLeftovers: (job) => leaveArchiveLeftovers(storage(), job.name, `${job.name}/`),
    })
  })
})
