/**
 * A files restore's `intoLibrary` is checked before anything runs (`tasks/uploadIntoLibrary.plannedUpload`):
 * a job without a video library source and a `libraryId` without `intoLibrary` are refused with a 400 that
 * says why; a job with one gets its sources (and the other library when named).
 */
import { expect } from 'chai'
import type { JobConfig } from '../../src/config/types.js'
import { plannedUpload } from '../../src/tasks/uploadIntoLibrary.js'
import { TaskRefusedError } from '../../src/tasks/TaskRefusedError.js'

const job = (sources: unknown[]) => ({ name: 'site', sources }) as unknown as JobConfig
const videos = { type: 'host-stream', name: 'videos' }
const files = { type: 'local', name: 'files', path: '/srv/site' }

describe('restore task: intoLibrary (checked before it runs)', () => {
  it('refuses a job with no video library source, and a libraryId without intoLibrary, with a 400 saying why', () => {
    const none = (() => plannedUpload(job([files]), { intoLibrary: true })) as () => unknown
    expect(none).to.throw(TaskRefusedError, 'job "site" has no source restored by uploading into a library (intoLibrary)')
    try {
      plannedUpload(job([videos]), { libraryId: 7 })
      expect.fail('refused')
    } catch (err) {
      expect(err).to.be.instanceOf(TaskRefusedError).and.include({ status: 400, message: 'libraryId goes with intoLibrary: true' })
    }
  })

  it("plans the job's video library sources, into another library when named; nothing without intoLibrary", () => {
    expect(plannedUpload(job([files, videos]), {})).to.equal(undefined)
    expect(plannedUpload(job([files, videos]), { intoLibrary: true })).to.deep.equal({ sources: [videos] })
    expect(plannedUpload(job([files, videos]), { intoLibrary: true, libraryId: 9 })).to.deep.equal({ sources: [videos], targetId: 9 })
  })
})
