/**
 * The config entries of the `mysql`, `mariadb`, `redis`, `s3` and `host` sources as a user writes
 * them in YAML: parsed with the original's defaults, `env:` secrets, paths resolved against the
 * config file's folder, every secret redacted in the job view, typos refused with the key named.
 */
import { expect } from 'chai'
import { join } from 'node:path'
import { parseConfig } from '../../src/config/loadConfig.js'
import { redactJob } from '../../src/engine/redactJob.js'

const yaml = `
jobs:
  - name: servers
    sources:
      - { type: mysql, name: shop, database: shop, username: backup, password: env:MYSQL_PASS, excludeTables: [sessions], extraParams: { skip-comments: '', lock-wait-timeout: 30 } }
      - { type: mariadb, name: all, socket: run/mysqld.sock, allDatabases: true, username: root, password: env:MARIA_PASS }
      - { type: redis, name: cache, host: 10.0.0.5, username: backup, password: env:REDIS_PASS }
      - { type: redis, name: rdb, path: data/dump.rdb }
      - { type: s3, name: bucket, bucket: assets, region: eu-west-1, endpoint: "https://s3.example.com", path: site, accessKeyId: env:S3_ID, secretAccessKey: env:S3_SECRET, excludes: ["cache/"], syncPath: cache/s3, extraParams: { workers: "20" } }
      - { type: host, name: zone, zoneName: media, accessKey: env:ZONE_KEY, path: uploads, syncPath: cache/zone, pullZoneHostname: media.b-cdn.net, pullZoneTokenAuthKey: env:CDN_KEY }
    storages:
      - { type: local, name: disk, path: /var/backups }
`
const env = {
  MYSQL_PASS: 'mysql-secret',
  MARIA_PASS: 'maria-secret',
  REDIS_PASS: 'redis-secret',
  S3_ID: 'id-secret',
  S3_SECRET: 's3-secret',
  ZONE_KEY: 'zone-secret',
  CDN_KEY: 'cdn-secret',
}

describe('config entries of the mysql, mariadb, redis, s3 and host sources', () => {
  it("parse from YAML with the original's defaults, env: secrets and paths resolved against the config folder", () => {
    const [shop, all, cache, rdb, bucket, zone] = parseConfig(yaml, '/etc/bd/config.yaml', '/etc/bd', env).jobs[0]!.sources as unknown as Record<
      string,
      unknown
    >[]
    expect(shop).to.deep.include({
      host: '127.0.0.1',
      port: 3306,
      password: 'mysql-secret',
      singleTransaction: true,
      extraParams: { 'skip-comments': '', 'lock-wait-timeout': '30' },
    })
    expect(all).to.deep.include({ socket: join('/etc/bd', 'run/mysqld.sock'), allDatabases: true })
    expect(cache).to.deep.include({ host: '10.0.0.5', port: 6379, password: 'redis-secret' })
    expect(rdb).to.deep.include({ path: join('/etc/bd', 'data/dump.rdb') })
    expect(bucket).to.deep.include({ secretAccessKey: 's3-secret', syncPath: join('/etc/bd', 'cache/s3'), extraParams: { workers: 20 }, usePathStyle: false })
    expect(zone).to.deep.include({
      endpoint: 'https://storage.bunnycdn.com',
      accessKey: 'zone-secret',
      syncPath: join('/etc/bd', 'cache/zone'),
      pullZoneTokenTTL: 3600,
    })
  })

  it('redacts every secret in the job view', () => {
    const shown = JSON.stringify(redactJob(parseConfig(yaml, '/etc/bd/config.yaml', '/etc/bd', env).jobs[0]!))
    for (const secret of Object.values(env)) expect(shown).not.to.include(secret)
    expect(shown).to.include('"bucket":"assets"').and.include('"zoneName":"media"')
  })

  it('refuses typos and contradictions, naming the key', () => {
    const attempt = (text: string) => {
      try {
        parseConfig(text, '/etc/bd/config.yaml', '/etc/bd', env)
        return ''
      } catch (err) {
        return (err as Error).message
      }
    }
    expect(attempt(yaml.replace('excludeTables: [sessions]', 'excludeTable: [sessions]'))).to.match(/excludeTable/)
    expect(attempt(yaml.replace('allDatabases: true', 'allDatabases: true, database: x'))).to.match(/database or allDatabases/)
    expect(attempt(yaml.replace('workers: "20"', 'workers: "many"'))).to.match(/workers/)
  })
})
