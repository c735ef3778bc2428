/**
 * @module test/config/documentedKeys
 * Issue 24 #14: every key of every source and storage type, as the original's documentation pages list
 * them (`docs/docs/configuration/{sources,storages}/*.md` of maximseshuk/snapr at 64a33e9, the field
 * tables), in one file that `check-config` accepts. `documented` is copied from those tables; the test
 * also checks the file below really uses each of those keys, so a key cannot be left out unnoticed.
 */
import { expect } from 'chai'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse } from 'yaml'
import { runCli } from '../support/runCli.js'
import { tempDir } from '../engine/helpers.js'

const documented: Record<string, Record<string, string[]>> = {
  sources: {
    bunny: [
      'endpoint',
      'zoneName',
      'accessKey',
      'path',
      'syncPath',
      'excludes',
      'extraParams.workers',
      'pullZoneHostname',
      'pullZoneTokenAuthKey',
      'pullZoneTokenTTL',
    ],
    local: ['path', 'excludes'],
    mariadb: ['host', 'port', 'username', 'password', 'database', 'tables', 'excludeTables', 'extraParams'],
    mongodb: ['uri', 'host', 'port', 'username', 'password', 'database', 'allDatabases', 'authDatabase', 'oplog', 'excludeTables', 'extraParams'],
    mysql: ['socket', 'username', 'password', 'allDatabases', 'excludeTables', 'extraParams'],
    postgresql: ['host', 'port', 'username', 'password', 'database', 'excludeTables', 'extraParams'],
    redis: ['path', 'host', 'port', 'socket', 'username', 'password'],
    s3: ['bucket', 'region', 'accessKeyId', 'secretAccessKey', 'endpoint', 'usePathStyle', 'path', 'excludes', 'syncPath'],
    sqlite: ['path'],
  },
  storages: {
    bunny: ['name', 'endpoint', 'zoneName', 'accessKey', 'path', 'includeJobName', 'pullZoneHostname', 'pullZoneTokenAuthKey', 'pullZoneTokenTTL'],
    local: ['name', 'path', 'includeJobName'],
    s3: ['name', 'bucket', 'region', 'accessKeyId', 'secretAccessKey', 'endpoint', 'path', 'includeJobName', 'storageClass', 'downloadMode', 'signedUrlTTL'],
    sftp: ['name', 'host', 'port', 'username', 'password', 'privateKey', 'passphrase', 'knownHosts', 'strictHostKey', 'path', 'includeJobName'],
    webdav: ['name', 'url', 'username', 'password', 'path', 'includeJobName'],
  },
}

const everyDocumentedKey = `jobs:
  - name: all
    sources:
      - { type: bunny, endpoint: storage.bunnycdn.com, zoneName: z, accessKey: k, path: media, syncPath: ./sync, excludes: ['*.tmp'], extraParams: { workers: 12 }, pullZoneHostname: z.b-cdn.net, pullZoneTokenAuthKey: t, pullZoneTokenTTL: 600 }
      - { type: local, path: ./www, excludes: ['*.tmp'] }
      - { type: mariadb, host: 127.0.0.1, port: 3306, username: u, password: p, database: d, tables: [a], excludeTables: [b], extraParams: { single-transaction: '' } }
      - { type: mysql, socket: /run/mysqld/mysqld.sock, username: u, password: p, allDatabases: true, excludeTables: [b], extraParams: { routines: '' } }
      - { type: mongodb, uri: 'mongodb://h/db', host: h, port: 27017, username: u, password: p, database: d, authDatabase: admin, oplog: true, excludeTables: [s], extraParams: { gzip: '' } }
      - { type: mongodb, host: h, username: u, password: p, allDatabases: true }
      - { type: postgresql, host: h, port: 5432, username: u, password: p, database: d, excludeTables: [t], extraParams: { no-owner: '' } }
      - { type: redis, host: 127.0.0.1, port: 6379, username: u, password: p }
      - { type: redis, path: ./app.db }
      - { type: redis, socket: /run/redis.sock }
      - { type: s3, bucket: b, region: r, accessKeyId: a, secretAccessKey: s, endpoint: 'http://127.0.0.1:9000', usePathStyle: true, path: p, excludes: ['x'], syncPath: ./s3sync }
      - { type: sqlite, path: ./app.db }
    storages:
      - { type: bunny, name: b, endpoint: storage.bunnycdn.com, zoneName: z, accessKey: k, path: p, includeJobName: true, pullZoneHostname: z.b-cdn.net, pullZoneTokenAuthKey: t, pullZoneTokenTTL: 60 }
      - { type: local, name: l, path: ./out, includeJobName: false }
      - { type: s3, name: s, bucket: b, region: r, accessKeyId: a, secretAccessKey: s, endpoint: 'http://127.0.0.1:9000', path: p, includeJobName: true, storageClass: STANDARD, downloadMode: signed, signedUrlTTL: 900 }
      - { type: sftp, name: f, host: h, port: 22, username: u, password: p, privateKey: ~/.ssh/id, passphrase: x, knownHosts: ~/.ssh/known_hosts, strictHostKey: true, path: p, includeJobName: true }
      - { type: webdav, name: w, url: 'https://dav.example.com/', username: u, password: p, path: p, includeJobName: true }
    retention: { last: 1 }
`

describe("config: every key of the original's documentation pages, every kind", function () {
  this.timeout(30_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())

  it('the file uses every documented key of every kind', () => {
    const job = (parse(everyDocumentedKey) as { jobs: Record<string, Record<string, unknown>[]>[] }).jobs[0]!
    for (const [list, kinds] of Object.entries(documented)) {
      for (const [kind, keys] of Object.entries(kinds)) {
        const used = new Set(
          job[list]!.filter((entry) => entry.type === kind).flatMap((entry) =>
            Object.entries(entry).flatMap(([key, value]) =>
              key === 'extraParams' && value && typeof value === 'object' ? [key, ...Object.keys(value).map((k) => `${key}.${k}`)] : [key],
            ),
          ),
        )
        for (const key of keys) expect(used.has(key), `${list} ${kind}: ${key}`).to.equal(true)
      }
    }
  })

  it('check-config accepts it', async () => {
    await mkdir(join(tmp.dir, 'www'))
    await writeFile(join(tmp.dir, 'app.db'), '')
    const file = join(tmp.dir, 'snapr.yaml')
    await writeFile(file, everyDocumentedKey)
    const { code, out } = await runCli(['check-config', '--config', file])
    expect(code, out).to.equal(0)
    expect(out).to.include('config OK: 1 job(s)')
  })
})
