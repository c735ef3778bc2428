/**
 * @module test/sources/mongodbKeys
 * Issue 24 #14: every key the original documents for a `mongodb` source (its docs page
 * `docs/docs/configuration/sources/mongodb.md`) is accepted and means what it says there. The config and
 * its mapping to the dump run without a server; what the keys do to a real dump (collections left out,
 * one point in time) runs against MONGODB_URI and is skipped without it.
 */
import { expect } from 'chai'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buffer } from 'node:stream/consumers'
import { MongoClient } from 'mongodb'
import { ConfigError } from '../../src/config/ConfigError.js'
import { loadConfig } from '../../src/config/loadConfig.js'
import { parseMongoArchive } from '../../src/sources/mongodb/parseMongoArchive.js'
import { dumpSettings, mongoUri } from '../../src/sources/mongodb/dumpSettings.js'
import { MongodbSource, type MongodbSourceConfig } from '../../src/sources/mongodb/index.js'
import { tempDir } from '../engine/helpers.js'
import { Readable } from 'node:stream'
import { entriesOf } from '../support/entriesOf.js'

const job = (source: string) => `jobs:
  - name: db
    sources:
${source}
    storages: [{ type: local, name: d, path: ./out }]
`
// The original's two documented examples, verbatim (indented into a job).
const uriExample = `      - type: mongodb
        uri: env:MONGO_URI
        oplog: true`
const hostExample = `      - type: mongodb
        host: mongo.internal
        port: 27017
        username: backup
        password: env:MONGO_PASSWORD
        authDatabase: admin
        database: app
        excludeTables:
          - sessions
          - audit
        extraParams:
          gzip: ''
          numParallelCollections: '4'`

describe("sources/mongodb: the original's documented keys", () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())
  const load = async (yaml: string, env: NodeJS.ProcessEnv = {}) => {
    const file = join(tmp.dir, 'snapr.yaml')
    await writeFile(file, yaml)
    return loadConfig(file, env)
  }
  const sourceOf = async (yaml: string, env: NodeJS.ProcessEnv = {}) => (await load(job(yaml), env)).jobs[0]!.sources[0] as MongodbSourceConfig
  const issues = async (yaml: string) => {
    const err = await load(job(yaml)).catch((e: unknown) => e)
    expect(err).to.be.instanceOf(ConfigError)
    return (err as ConfigError).issues.map((i) => `${i.path}: ${i.message}`)
  }

  it('loads the host/port example and maps every key: credentials, authDatabase, excludeTables, gzip', async () => {
    const source = await sourceOf(hostExample, { MONGO_PASSWORD: 'p@ss:word/1' })
    const settings = dumpSettings(source)
    expect(settings.uri).to.equal('mongodb://backup:p%40ss%3Aword%2F1@mongo.internal:27017/?authSource=admin')
    expect(settings.database).to.equal('app')
    expect(settings.excludeCollections).to.deep.equal(['sessions', 'audit'])
    expect(settings.gzip).to.equal(true)
    expect(settings.pointInTime).to.equal(false)
  })

  it('loads the URI example: the URI as given, oplog = one point in time, every database', async () => {
    const source = await sourceOf(uriExample, { MONGO_URI: 'mongodb://a:1,b:2/?replicaSet=rs0' })
    const settings = dumpSettings(source)
    expect(settings.uri).to.equal('mongodb://a:1,b:2/?replicaSet=rs0')
    expect(settings.pointInTime).to.equal(true)
    expect(settings.database).to.equal(undefined)
  })

  it('defaults host 127.0.0.1 and port 27017; allDatabases dumps every database', async () => {
    const settings = dumpSettings(await sourceOf('      - { type: mongodb, allDatabases: true, username: u, password: p }'))
    expect(settings.uri).to.equal('mongodb://u:p@127.0.0.1:27017/')
    expect(settings.database).to.equal(undefined)
  })

  it('maps the supported extraParams to connection options and collection filters', () => {
    const config: MongodbSourceConfig = {
      type: 'mongodb',
      name: 'm',
      uri: 'mongodb://h/db',
      database: 'db',
      extraParams: { readPreference: 'secondary', tls: '', excludeCollectionsWithPrefix: 'tmp_,cache_', collection: 'orders' },
    }
    expect(mongoUri(config)).to.equal('mongodb://h/db?readPreference=secondary&tls=true')
    expect(dumpSettings(config)).to.deep.include({ excludePrefixes: ['tmp_', 'cache_'], collection: 'orders' })
  })

  it('refuses what cannot act: an unknown mongodump flag, database with allDatabases, no database at all', async () => {
    expect(await issues('      - { type: mongodb, database: a, extraParams: { dumpDbUsersAndRoles: "" } }')).to.satisfy((list: string[]) =>
      list.some((line) => line.startsWith('jobs[0].sources[0].extraParams.dumpDbUsersAndRoles: unsupported mongodump flag')),
    )
    expect(await issues('      - { type: mongodb, database: a, allDatabases: true }')).to.include(
      'jobs[0].sources[0].allDatabases: set database or allDatabases: true, not both',
    )
    expect(await issues('      - { type: mongodb, host: h }')).to.include(
      'jobs[0].sources[0].database: set uri, database or allDatabases: true (which databases to dump)',
    )
  })

  it('hides the password in the job config the API shows', async () => {
    const { redactJob } = await import('../../src/engine/redactJob.js')
    const config = await load(job(hostExample), { MONGO_PASSWORD: 'hidden-pass-1' })
    const shown = JSON.stringify(redactJob(config.jobs[0]!))
    expect(shown).not.to.include('hidden-pass-1')
    expect(shown).to.include('"authDatabase":"admin"')
  })

  describe('against a real server (MONGODB_URI)', function () {
    this.timeout(120_000)
    const uri = process.env.MONGODB_URI
    const database = `bd_keys_${process.pid}_${Date.now()}`
    let client: MongoClient
    before(async function () {
      if (!uri) {
        console.log('    skipped: MONGODB_URI is not set (no MongoDB server can run on this machine)')
        this.skip()
      }
      client = await new MongoClient(uri).connect()
      for (const name of ['orders', 'sessions', 'audit', 'tmp_x']) await client.db(database).collection(name).insertOne({ name })
    })
    after(async () => {
      await client?.db(database).dropDatabase()
      await client?.close()
    })

    const dumpedCollections = async (config: Partial<MongodbSourceConfig>) => {
      const source = new MongodbSource({ type: 'mongodb', name: 'm', uri: uri!, database, ...config }, { log: () => {} })
      let bytes = Buffer.alloc(0)
      for await (const entry of entriesOf(source, new AbortController().signal)) if (entry.open) bytes = await buffer(entry.open(new AbortController().signal))
      const names: string[] = []
      for await (const item of parseMongoArchive(Readable.from([bytes]))) if (item.kind === 'collection') names.push(item.prelude.collection)
      return names.sort()
    }

    it('excludeTables and excludeCollectionsWithPrefix leave collections out of the dump', async () => {
      expect(await dumpedCollections({ excludeTables: ['sessions', 'audit'], extraParams: { excludeCollectionsWithPrefix: 'tmp_' } })).to.deep.equal(['orders'])
    })

    it('oplog: true dumps through one snapshot session (a replica set is needed, as for mongodump --oplog)', async () => {
      expect(await dumpedCollections({ oplog: true })).to.deep.equal(['audit', 'orders', 'sessions', 'tmp_x'])
    })
  })
})
