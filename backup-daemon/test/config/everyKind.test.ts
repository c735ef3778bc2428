/**
 * One `snapr.yaml` that uses every source, storage and notifier type of the original service at once,
 * written with the original's keys (no source names, `excludes`, `username`, `extraParams`,
 * `notifiers` with `onSuccess`/`onFailure`, the type `bunny`), checked by the real CLI: `check-config`
 * accepts it, prints no secret, and still points at a typo with its line and column.
 */
import { expect } from 'chai'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { tempDir } from '../engine/helpers.js'
import { runCli } from '../support/runCli.js'

const secrets = {
  PG_PASS: 'pg-secret-1',
  MYSQL_PASS: 'mysql-secret-2',
  MARIA_PASS: 'maria-secret-3',
  MONGO_URI: 'mongodb://backup:mongo-secret-4@db.internal:27017/app',
  REDIS_PASS: 'redis-secret-5',
  S3_SECRET: 's3-secret-6',
  ZONE_KEY: 'zone-secret-7',
  SFTP_PASS: 'sftp-secret-8',
  DAV_PASS: 'dav-secret-9',
  ENC_PASS: 'enc-secret-10',
  TG_TOKEN: '123456:tg-secret-11',
  SMTP_PASS: 'smtp-secret-12',
}

const everyKind = `
logs:
  path: ./logs
server:
  address: 127.0.0.1:8080
  logLimits: { jobLogs: 500, systemLogs: 500 }
jobs:
  - name: everything
    schedule: '0 2 * * *'
    compression: zst
    defaultStorage: disk
    beforeScript: echo start
    afterScript: echo end
    sources:
      - type: local
        path: ./www
        excludes: ['*.tmp', 'cache/', '**/node_modules/**']
      - type: sqlite
        path: ./app.db
      - type: postgresql
        host: db.internal
        username: postgres
        password: env:PG_PASS
        database: app
        excludeTables: [audit_log]
        extraParams: { no-owner: '' }
      - type: mysql
        host: db.internal
        username: backup
        password: env:MYSQL_PASS
        database: shop
        tables: [orders, customers]
        extraParams: { skip-comments: '' }
      - type: mariadb
        socket: /run/mysqld/mysqld.sock
        username: root
        password: env:MARIA_PASS
        allDatabases: true
        excludeTables: [shop.sessions]
      - type: mongodb
        uri: env:MONGO_URI
      - type: redis
        host: cache.internal
        username: backup
        password: env:REDIS_PASS
      - type: s3
        bucket: assets
        region: eu-west-1
        accessKeyId: AKIAEXAMPLE
        secretAccessKey: env:S3_SECRET
        endpoint: https://s3.example.com
        path: uploads
        excludes: ['thumbs/']
        syncPath: /var/cache/snapr/s3
      - type: bunny
        zoneName: media
        accessKey: env:ZONE_KEY
        path: images
        syncPath: /var/cache/snapr/zone
        extraParams: { workers: 20 }
    storages:
      - name: disk
        type: local
        path: ./backups
      - name: bucket
        type: s3
        bucket: backups
        region: eu-west-1
        accessKeyId: AKIAEXAMPLE
        secretAccessKey: env:S3_SECRET
        storageClass: STANDARD_IA
        downloadMode: signed
      - name: offsite
        type: sftp
        host: backup.example.com
        username: backup
        password: env:SFTP_PASS
        path: /srv/snapr
        strictHostKey: false
      - name: cloud
        type: webdav
        url: https://dav.example.com/remote.php/dav/files/backup/
        username: backup
        password: env:DAV_PASS
        path: snapr
      - name: zone
        type: bunny
        zoneName: backups
        accessKey: env:ZONE_KEY
        includeJobName: false
    retention:
      last: 7
    encryption:
      cipher: aes-256-ctr
      password: env:ENC_PASS
    split:
      chunkSize: 512MB
    notifiers:
      - name: hook
        type: webhook
        url: https://hooks.example.com/backup
        method: POST
        headers: { X-Token: static }
        onSuccess: true
        onFailure: true
      - name: chat
        type: telegram
        botToken: env:TG_TOKEN
        chatId: '-1001234567890'
        onFailure: true
      - name: mail
        type: email
        smtpHost: smtp.example.com
        smtpPort: 465
        smtpUser: alerts@example.com
        smtpPass: env:SMTP_PASS
        from: alerts@example.com
        to: [ops@example.com]
        useTLS: true
        onSuccess: false
        onFailure: true
`

function checkConfig(file: string): Promise<{ code: number | null; output: string }> {
  return runCli(['check-config', '--config', file], { env: secrets }).then(({ code, out }) => ({ code, output: out }))
}

describe('config: every source, storage and notifier type of the original at once', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())

  it('check-config accepts it with the original keys, names the spellings it prefers, and prints no secret', async () => {
    const file = join(tmp.dir, 'snapr.yaml')
    await writeFile(file, everyKind)
    // check-config also looks at the machine: the local source folder and the SQLite file exist.
    await mkdir(join(tmp.dir, 'www'))
    await writeFile(join(tmp.dir, 'app.db'), '')
    const { code, output } = await checkConfig(file)
    expect(code, output).to.equal(0)
    expect(output).to.include('config OK: 1 job(s)')
    expect(output).to.match(/notice: .*excludes/)
    expect(output).to.match(/notice: .*notifiers/)
    for (const secret of Object.values(secrets)) expect(output).to.not.include(secret)
  })

  it('still refuses a typo in any of them with its line and column', async () => {
    const file = join(tmp.dir, 'snapr.yaml')
    const typo = everyKind.replace('strictHostKey: false', 'strictHostkey: false')
    await writeFile(file, typo)
    const line = typo.split('\n').findIndex((l) => l.includes('strictHostkey')) + 1
    const { code, output } = await checkConfig(file)
    expect(code).to.equal(1)
    expect(output).to.include(`${file}:${line}:9`)
    expect(output).to.include('strictHostkey')
  })
})
