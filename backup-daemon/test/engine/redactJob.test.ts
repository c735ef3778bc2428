import { expect } from 'chai'
import type { JobConfig } from '../../src/config/types.js'
import { redactJob } from '../../src/engine/redactJob.js'

describe('engine/redactJob', () => {
  it('replaces declared and obvious secrets, and passwords inside URLs, and leaves the rest', () => {
    const job = {
      name: 'j',
      schedule: '',
      active: true,
      compression: 'tar.gz',
      sources: [
        { type: 'local', name: 'files', path: '/srv' },
        { type: 'mongodb', name: 'db', uri: 'mongodb://backup:hunter2@db.local:27017/app' },
        { type: 'postgresql', name: 'pg', database: 'app', password: 'pg-secret' },
      ],
      storages: [{ type: 's3', name: 'cloud', bucket: 'b', endpoint: 'https://user:pw123@minio.local', accessKeyId: 'AKIA123', secretAccessKey: 'shh' }],
    } as unknown as JobConfig
    const out = JSON.stringify(redactJob(job))
    for (const secret of ['hunter2', 'pg-secret', 'AKIA123', 'shh', 'pw123']) expect(out).to.not.include(secret)
    expect(out).to.include('https://user:[redacted]@minio.local')
    expect(out).to.include('"path":"/srv"')
    expect(out).to.include('"bucket":"b"')
    expect(job.sources[1]).to.deep.include({ uri: 'mongodb://backup:hunter2@db.local:27017/app' })
  })
})
