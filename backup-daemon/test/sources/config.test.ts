import { expect } from 'chai'
import { join } from 'node:path'
import { parseConfig } from '../../src/config/loadConfig.js'
import { redactJob } from '../../src/engine/redactJob.js'

const yaml = `
jobs:
  - name: everything
    sources:
      - { type: sqlite, name: cms, path: data/payload.db }
      - { type: postgresql, name: pg, database: shop, host: db, port: 5433, user: u, password: env:PG_PASS, excludeTables: [logs], params: [--no-owner] }
      - { type: mongodb, name: mongo, uri: env:MONGO_URI, database: cms, excludeCollections: [sessions], gzip: true }
    storages:
      - { type: host, name: bunny, zoneName: z, accessKey: env:ZONE_KEY, pullZoneHostname: z.b-cdn.net, pullZoneTokenAuthKey: env:CDN_KEY, pullZoneTokenTTL: 300 }
      - { type: s3, name: aws, bucket: b, region: eu-west-1, path: cms, accessKeyId: env:S3_ID, secretAccessKey: env:S3_SECRET, storageClass: STANDARD_IA, downloadMode: signed, signedUrlTTL: 600 }
`
const env = {
  PG_PASS: 'pg-secret',
  MONGO_URI: 'mongodb://u:mongo-secret@h/cms',
  ZONE_KEY: 'zone-secret',
  CDN_KEY: 'cdn-secret',
  S3_ID: 'id-secret',
  S3_SECRET: 's3-secret',
}

describe('config entries of the database sources and remote storages', () => {
  it('parse from YAML with env: secrets, and sqlite paths resolve against the config folder', () => {
    const config = parseConfig(yaml, '/etc/bd/config.yaml', '/etc/bd', env)
    const job = config.jobs[0]!
    expect(job.sources.map((s) => s.type)).to.deep.equal(['sqlite', 'postgresql', 'mongodb'])
    expect(job.sources[0]).to.include({ path: join('/etc/bd', 'data/payload.db') })
    expect(job.sources[1]).to.include({ password: 'pg-secret', port: 5433 })
    expect(job.storages[0]).to.include({ accessKey: 'zone-secret', pullZoneTokenTTL: 300 })
    expect(job.storages[1]).to.include({ secretAccessKey: 's3-secret', downloadMode: 'signed', signedUrlTTL: 600 })
  })

  it('redacts every secret in the job view', () => {
    const job = parseConfig(yaml, '/etc/bd/config.yaml', '/etc/bd', env).jobs[0]!
    const shown = JSON.stringify(redactJob(job))
    for (const secret of Object.values(env)) expect(shown).not.to.include(secret)
  })

  it('refuses typos and out-of-range values, naming the key', () => {
    const bad = yaml.replace('signedUrlTTL: 600', 'signedUrlTTL: 30').replace('zoneName: z,', 'zoneNmae: z,')
    const err = (() => {
      try {
        parseConfig(bad, '/etc/bd/config.yaml', '/etc/bd', env)
        return undefined
      } catch (e) {
        return e as Error
      }
    })()
    expect(err).to.be.instanceOf(Error)
    expect(err!.message).to.match(/zoneNmae|zoneName/)
    expect(err!.message).to.match(/signedUrlTTL/)
  })
})
