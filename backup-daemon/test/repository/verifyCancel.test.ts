/**
 * @module test/repository/verifyCancel
 * A cancel stops a verify within a chunk, not at the end of the part being read: a large single-part
 * snapshot (one object of 24 MiB) is verified with a signal aborted after the first chunk; the verify
 * rejects with the cancel's reason (not "damaged") having read a small fraction of the part.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { archiveRepository } from '../../src/repository/archives/archiveRepository.js'
import { jobLayout, snapshotName } from '../../src/repository/archives/layout.js'
import { writeSnapshot } from '../../src/repository/archives/writeSnapshot.js'
import { LocalStorage } from '../../src/storages/local.js'
import { tempDir } from '../engine/helpers.js'

describe('repository: a verify is cancelled per chunk', function () {
  let tmp: { dir: string; remove(): Promise<void> }
  before(async () => {
    tmp = await tempDir()
  })
  after(() => tmp.remove())

  it('rejects with the cancel reason after reading a fraction of a 24 MiB part, and counts only what it read', async () => {
    const storage = new LocalStorage('disk', join(tmp.dir, 'backups'))
    const size = 24 * 1024 * 1024
    const createdAt = new Date('2026-03-01T00:00:00Z')
    const name = snapshotName('j', createdAt, 'tar')
    await writeSnapshot({
      archive: Readable.from([randomBytes(size)]),
      storages: [storage],
      job: 'j',
      name,
      compression: 'tar',
      createdAt,
      signal: new AbortController().signal,
    })
    const snapshot = await archiveRepository(storage, jobLayout('j')).find(name)
    expect(snapshot?.view.partsCount).to.equal(1)
    // Uncancelled, the whole part is read and checked.
    expect(await snapshot!.verify({})).to.include({ ok: true, bytes: size })

    const controller = new AbortController()
    const reason = new Error('cancelled by the test')
    let read = 0
    const outcome = await snapshot!
      .verify({
        signal: controller.signal,
        onBytes: (n) => {
          read += n
          controller.abort(reason)
        },
      })
      .then(
        (result) => result,
        (err: unknown) => err,
      )
    expect(outcome).to.equal(reason)
    expect(read).to.be.greaterThan(0)
    expect(read).to.be.lessThan(size / 4)
  })
})
