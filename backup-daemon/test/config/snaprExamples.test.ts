/**
 * The original service's two complete example files (stored verbatim under test/fixtures/snapr/) load
 * unchanged, with the meaning the original gives every key (sftp and webdav storages, telegram notifiers,
 * openssl encryption, 1GB-style split sizes, hooks included).
 */
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../src/config/ConfigError.js'
import { parseConfigWithNotices } from '../../src/config/loadConfig.js'
import type { EmailNotifyConfig, TelegramNotifyConfig, WebhookNotifyConfig } from '../../src/config/types.js'
import type { PostgresqlSourceConfig } from '../../src/sources/postgresql/index.js'
import { redactJob } from '../../src/engine/redactJob.js'

const fixtures = join(import.meta.dirname, '../fixtures/snapr')
const fullExampleMd = readFileSync(join(fixtures, 'full-example.md'), 'utf8')
/** The YAML block of the documentation page, as a user would copy it. */
const fullExample = /```yaml\n([\s\S]*?)```/.exec(fullExampleMd)![1]!
const devExample = readFileSync(join(fixtures, 'snapr.yaml'), 'utf8')

const env = {
  SNAPR_JWT_SECRET: 'jwt-secret-0123456789',
  SNAPR_ADMIN_PASSWORD: 'admin-pass',
  S3_KEY: 'AKIAEXAMPLE',
  S3_SECRET: 's3-secret',
  PG_PASSWORD: 'pg-secret',
  BACKUP_ENC_PASSWORD: 'enc-secret',
  TG_BOT_TOKEN: '123456:tg-secret',
}

function parse(text: string) {
  return parseConfigWithNotices(text, '/etc/snapr/snapr.yaml', '/etc/snapr', env)
}

describe("config: the original service's example files", () => {
  for (const [label, text] of [
    ['full-example.md', fullExample],
    ['examples/dev/snapr.yaml', devExample],
  ] as const) {
    it(`${label}: loads unchanged, with no error`, () => {
      let issues: ConfigError['issues'] = []
      try {
        parse(text)
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err
        issues = err.issues
      }
      expect(issues).to.deep.equal([])
    })
  }

  it('full-example.md: every key with the meaning the original gives it', () => {
    const text = fullExample
    const { config, notices } = parse(text)
    expect(config.logs).to.deep.equal({
      directory: '/var/log/snapr',
      system: true,
      perJob: true,
      maxSizeMB: 100,
      maxBackups: 7,
      maxAgeDays: 30,
      compress: true,
    })
    expect(config.server).to.deep.include({ enabled: true, address: '0.0.0.0:8080', secret: env.SNAPR_JWT_SECRET, defaultLanguage: 'en' })
    expect(config.server.auth).to.deep.include({ enabled: true, username: 'admin', password: env.SNAPR_ADMIN_PASSWORD, tokenExpiration: 60 })
    expect(config.server.permissions).to.deep.equal({ allowBackupDownload: true, allowManualRun: true, showConfig: true, allowRestore: false })
    expect(config.server.ui).to.deep.equal({ enabled: true })
    expect(config.logLimits).to.deep.equal({ jobLogs: 10000, systemLogs: 10000 })
    expect(config.jobs.map((j) => j.name)).to.deep.equal(['files-to-s3', 'postgres-nightly', 'huge-archive-split'])
    expect(config.jobs.map((j) => j.compression)).to.deep.equal(['tar.gz', 'tar.gz', 'tar.gz'])
    const [s3Job, pgJob, splitJob] = config.jobs
    expect(s3Job!.sources).to.deep.equal([{ type: 'local', name: 'local', path: '/var/data', exclude: ['*.tmp', '*.log'] }])
    expect(s3Job!.storages[0]).to.deep.equal({
      type: 's3',
      name: 's3-primary',
      bucket: 'backups',
      region: 'us-east-1',
      accessKeyId: env.S3_KEY,
      secretAccessKey: env.S3_SECRET,
      storageClass: 'STANDARD_IA',
      includeJobName: true,
      // the s3 storage's own defaults
      path: '',
      usePathStyle: false,
      downloadMode: 'proxy',
      signedUrlTTL: 900,
      timeout: 60,
    })
    expect(s3Job!.retention).to.deep.equal({ last: 7 })
    expect(s3Job!.encryption).to.equal(undefined)
    const pg = pgJob!.sources[0] as PostgresqlSourceConfig
    expect(pg).to.deep.equal({
      type: 'postgresql',
      name: 'postgresql',
      host: 'db.internal',
      port: 5432,
      user: 'postgres',
      password: env.PG_PASSWORD,
      database: 'app',
    })
    expect(pgJob!.storages.map((s) => s.name)).to.deep.equal(['local-disk', 'offsite-sftp'])
    expect(pgJob!.storages[0]).to.deep.equal({ type: 'local', name: 'local-disk', path: '/var/backups', includeJobName: true })
    expect(pgJob!.encryption).to.deep.equal({ type: 'openssl', cipher: 'aes-256-cbc', password: env.BACKUP_ENC_PASSWORD })
    expect(pgJob!.retention).to.deep.equal({ last: 30 })
    const tg = pgJob!.notify[0] as TelegramNotifyConfig
    // onFailure alone: failures only (onSuccess defaults to false in the original).
    expect(tg).to.deep.equal({
      type: 'telegram',
      botToken: env.TG_BOT_TOKEN,
      chatId: '-1001234567890',
      on: ['failure'],
      timeout: 10000,
      apiBase: 'https://api.telegram.org',
    })
    // `type` left out: openssl with its default cipher.
    expect(splitJob!.encryption).to.deep.equal({ type: 'openssl', cipher: 'aes-256-cbc', password: env.BACKUP_ENC_PASSWORD })
    expect(splitJob!.split).to.deep.equal({ chunkSize: 1024 ** 3 })
    expect(splitJob!.sources[0]).to.deep.include({ name: 'local', path: '/var/lib/bigdata' })
    // check-config names the original's spellings it met, with their lines.
    const lines = text.split('\n')
    const lineOf = (key: string, after = 0) => lines.findIndex((line, i) => i >= after && line.trimStart().startsWith(`${key}:`)) + 1
    const said = notices.map((n) => `${n.path}@${n.line}`)
    expect(said).to.include.members([
      `logs.path@${lineOf('path')}`,
      `jobs[0].sources[0].excludes@${lineOf('excludes')}`,
      `jobs[1].sources[0].username@${lineOf(
        'username',
        lines.findIndex((line) => line.includes('type: postgresql')),
      )}`,
      `jobs[1].notifiers@${lineOf('notifiers')}`,
      `jobs[1].notifiers[0].onFailure@${lineOf('onFailure')}`,
    ])
    expect(notices.every((n) => /both work/.test(n.message))).to.equal(true)
    expect(pgJob!.storages[1]).to.deep.include({
      type: 'sftp',
      name: 'offsite-sftp',
      host: 'offsite.example.com',
      username: 'backup',
      path: '/snapr',
      includeJobName: true,
    })
    expect(redactJob(pgJob!).storages[1]).to.deep.include({ type: 'sftp', hasPrivateKey: true, host: 'offsite.example.com' })
    const shown = JSON.stringify(config.jobs.map(redactJob))
    for (const secret of Object.values(env).filter((v) => v !== env.SNAPR_JWT_SECRET && v !== env.SNAPR_ADMIN_PASSWORD)) expect(shown).to.not.include(secret)
  })

  it('examples/dev/snapr.yaml: every key with the meaning the original gives it', () => {
    const { config } = parse(devExample)
    expect(config.logs).to.deep.equal({
      directory: '/etc/snapr/examples/dev/logs',
      system: true,
      perJob: true,
      maxSizeMB: 50,
      maxBackups: 3,
      maxAgeDays: 7,
      compress: true,
    })
    expect(config.server).to.deep.include({ enabled: true, address: '0.0.0.0:47100', secret: 'dev-jwt-secret-change-me', defaultLanguage: 'en' })
    expect(config.server.auth).to.deep.include({ enabled: true, username: 'admin', password: 'admin', tokenExpiration: 60 })
    expect(config.jobs.map((j) => j.name)).to.deep.equal(['files-to-s3', 'database-snapshot', 'files-to-sftp', 'files-to-webdav', 'large-archive-split'])
    expect(config.jobs.map((j) => j.compression)).to.deep.equal(['tar.gz', 'tar.gz', 'tar.gz', 'tar.zst', 'tar'])
    const [files, db, sftpJob, davJob, split] = config.jobs
    expect(files!.sources[0]).to.deep.equal({ type: 'local', name: 'local', path: '/etc/snapr/examples/dev/data', exclude: ['*.tmp', '*.log'] })
    expect(files!.storages[0]).to.deep.include({
      type: 's3',
      name: 'minio-files',
      endpoint: 'http://localhost:47103',
      path: 'local-backup',
      storageClass: 'STANDARD',
      includeJobName: true,
    })
    expect(db!.sources[0]).to.deep.equal({
      type: 'postgresql',
      name: 'postgresql',
      host: 'localhost',
      port: 47102,
      user: 'postgres',
      password: 'postgres',
      database: 'testdb',
      excludeTables: ['temp_table'],
    })
    expect(db!.storages.map((s) => `${s.type}:${s.name}`)).to.deep.equal(['local:local-disk', 's3:minio-postgres'])
    expect(db!.encryption).to.deep.equal({ type: 'openssl', cipher: 'aes-256-cbc', password: 'dev-backup-encryption-pass' })
    const [hook, tg] = db!.notify as [WebhookNotifyConfig, TelegramNotifyConfig]
    expect(hook).to.deep.equal({
      type: 'webhook',
      name: 'ops-webhook',
      url: 'https://hooks.example.com/services/T0/B0/abc123secret',
      method: 'POST',
      headers: { Authorization: 'Bearer dev-token' },
      on: ['success', 'failure'],
      timeout: 10000,
    })
    expect(tg).to.deep.include({
      type: 'telegram',
      name: 'oncall-tg',
      botToken: '7891234567:AAEdev-bot-token-placeholder',
      chatId: '-1001234567890',
      on: ['failure'],
    })
    const mail = sftpJob!.notify[0] as EmailNotifyConfig
    expect(mail).to.deep.equal({
      type: 'email',
      name: 'mail-team',
      smtp: { host: 'smtp.example.com', port: 587, username: 'alerts@example.com', password: 'dev-smtp-password', secure: false },
      from: 'alerts@example.com',
      to: ['devops@example.com', 'sre@example.com'],
      on: ['success', 'failure'],
      timeout: 10000,
    })
    expect(davJob!.encryption).to.deep.include({ type: 'openssl', cipher: 'aes-256-cbc' })
    expect(split!.beforeScript).to.equal(
      'mkdir -p ./examples/dev/large-data\ndd if=/dev/urandom of=./examples/dev/large-data/payload.bin bs=1M count=50 2>/dev/null\n',
    )
    expect(split!.afterScript).to.equal('rm -rf ./examples/dev/large-data\n')
    expect(split!.split).to.deep.equal({ chunkSize: 10 * 1048576 })
    expect(split!.retention).to.deep.equal({ last: 3 })
    expect(redactJob(split!)).to.deep.include({ hasBeforeScript: true, hasAfterScript: true, split: { chunkSize: '10MB', chunkSizeBytes: 10485760 } })
    expect(redactJob(db!).notifiers).to.deep.equal([
      {
        type: 'webhook',
        name: 'ops-webhook',
        onSuccess: true,
        onFailure: true,
        urlHost: 'hooks.example.com',
        method: 'POST',
        on: ['success', 'failure'],
        timeout: 10000,
      },
      { type: 'telegram', name: 'oncall-tg', onSuccess: false, onFailure: true, chatId: '-1001234567890', on: ['failure'], timeout: 10000 },
    ])
    expect(sftpJob!.storages[0]).to.deep.include({
      type: 'sftp',
      name: 'sftp-server',
      host: 'localhost',
      port: 47105,
      username: 'backup',
      strictHostKey: false,
      includeJobName: true,
    })
    expect(davJob!.storages[0]).to.deep.include({
      type: 'webdav',
      name: 'webdav-server',
      url: 'http://localhost:47106',
      username: 'backup',
      includeJobName: true,
    })
    expect(redactJob(davJob!).storages[0]).to.deep.include({ hasUrl: true, urlHost: 'localhost:47106' })
    expect(JSON.stringify(redactJob(davJob!))).to.not.include('"password"')
  })
})
