import { expect } from 'chai'
import { ConfigError, type ConfigIssue } from '../../src/config/ConfigError.js'
import { parseConfigWithNotices } from '../../src/config/loadConfig.js'
import { parseSize } from '../../src/config/parseSize.js'
import type { PostgresqlSourceConfig } from '../../src/sources/postgresql/index.js'
import type { HostStorageConfig } from '../../src/storages/host/index.js'

const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfigWithNotices(text, '/etc/bd/c.yaml', '/etc/bd', env)
function issuesOf(text: string, env: NodeJS.ProcessEnv = {}): ConfigIssue[] {
  try {
    parse(text, env)
  } catch (err) {
    if (err instanceof ConfigError) return err.issues
    throw err
  }
  throw new Error('expected the config to be refused')
}

/** One job around `extra` job keys and a `sources` list. */
const job = (extra: string, sources = '[{ type: local, path: /srv }]') => `jobs:
  - name: j
    sources: ${sources}
    storages: [{ type: local, name: d, path: /b }]
${extra}`

describe('config: the original spellings beside ours', () => {
  it('parses sizes as the original does (powers of 1024)', () => {
    expect(parseSize('1GB')).to.equal(1073741824)
    expect(parseSize('1GiB')).to.equal(1073741824)
    expect(parseSize('10MB')).to.equal(10485760)
    expect(parseSize('512KiB')).to.equal(524288)
    expect(parseSize('2TB')).to.equal(2 * 1024 ** 4)
    expect(parseSize('100B')).to.equal(100)
    expect(parseSize('4096')).to.equal(4096)
    expect(parseSize(65536)).to.equal(65536)
    expect(parseSize('1.5MB')).to.equal(1572864)
    expect(parseSize('ten MB')).to.have.property('error')
    expect(parseSize('1PB')).to.have.property('error')
  })

  it('refuses a bad size string at its line and column', () => {
    const issues = issuesOf(job('    split:\n      chunkSize: 1 gigabyte\n'))
    expect(issues).to.have.length(1)
    expect(issues[0]).to.include({ path: 'jobs[0].split.chunkSize', line: 6, column: 18 })
    expect(issues[0]!.message).to.match(/not a size/)
  })

  it('maps compression aliases and keeps our object form; omitted is tar', () => {
    const names = ['gz', 'gzip', 'zst', 'zstd', 'xz', 'zip', 'tar', 'tar.xz']
    const want = ['tar.gz', 'tar.gz', 'tar.zst', 'tar.zst', 'tar.xz', 'zip', 'tar', 'tar.xz']
    names.forEach((name, i) => expect(parse(job(`    compression: ${name}\n`)).config.jobs[0]!.compression, name).to.equal(want[i]))
    expect(parse(job('    compression: { type: zst, level: 9 }\n')).config.jobs[0]).to.include({ compression: 'tar.zst', compressionLevel: 9 })
    expect(parse(job('')).config.jobs[0]!.compression).to.equal('tar')
    expect(issuesOf(job('    compression: rar\n'))[0]).to.include({ path: 'jobs[0].compression', line: 5 })
    expect(issuesOf(job('    compression: { type: zip, level: 3 }\n'))[0]!.message).to.match(/zip has no compression level/)
  })

  it('names unnamed sources <type>, <type>-2, ... around the names already taken', () => {
    const names = parse(
      job('', '[{ type: local, path: /a }, { type: local, name: local-2, path: /b }, { type: local, path: /c }, { type: sqlite, path: /d.db }]'),
    ).config.jobs[0]!.sources.map((s) => s.name)
    expect(names).to.deep.equal(['local', 'local-2', 'local-3', 'sqlite'])
  })

  it('maps excludes, postgresql username and extraParams, bunny storages, lowercase sameSite, logs.path and server.logLimits', () => {
    const text = `logs: { path: ./logs, maxSizeMB: 0 }
server:
  logLimits: { jobLogs: 0, systemLogs: 500 }
  auth: { username: a, password: p, cookies: { sameSite: strict } }
jobs:
  - name: j
    sources:
      - { type: local, path: /srv, excludes: [cache/] }
      - { type: postgresql, host: db, username: pg, database: app, extraParams: { no-owner: '', lock-wait-timeout: 30s } }
    storages:
      - { type: bunny, name: cdn, zoneName: z, accessKey: k, includeJobName: false }
`
    const { config, notices } = parse(text)
    expect(config.logs).to.include({ directory: '/etc/bd/logs', maxSizeMB: 0, maxBackups: 7 })
    expect(config.logLimits).to.deep.equal({ jobLogs: 10000, systemLogs: 500 })
    expect(config.server.auth.cookies.sameSite).to.equal('Strict')
    const [local, pg] = config.jobs[0]!.sources
    expect(local).to.deep.equal({ type: 'local', name: 'local', path: '/srv', exclude: ['cache/'] })
    expect(pg as PostgresqlSourceConfig).to.deep.equal({
      type: 'postgresql',
      name: 'postgresql',
      host: 'db',
      user: 'pg',
      database: 'app',
      params: ['--no-owner', '--lock-wait-timeout=30s'],
    })
    expect(config.jobs[0]!.storages[0] as HostStorageConfig).to.deep.include({ type: 'host', name: 'cdn', includeJobName: false })
    expect(notices.map((n) => `${n.path}@${n.line}:${n.column}`)).to.deep.equal([
      'logs.path@1:9',
      'server.logLimits@3:3',
      'jobs[0].sources[0].excludes@8:36',
      'jobs[0].sources[1].username@9:39',
      'jobs[0].sources[1].extraParams@9:68',
      'jobs[0].storages[0].type@11:11',
    ])
    expect(notices[2]!.message).to.equal('"excludes" is the original\'s spelling of "exclude"; both work, "exclude" is preferred')
  })

  it('refuses both spellings of one key in one place, at the line and column of the original one', () => {
    expect(issuesOf('logs: { path: /a, directory: /b }\n')).to.deep.equal([
      {
        path: 'logs.path',
        line: 1,
        column: 9,
        message: '"path" (the original\'s spelling) and "directory" name the same key: keep one ("directory" is preferred)',
      },
    ])
    const both = issuesOf(job('', '[{ type: local, path: /a, exclude: [x], excludes: [y] }]'))
    expect(both).to.have.length(1)
    expect(both[0]).to.include({ path: 'jobs[0].sources[0].excludes', line: 3, column: 54 })
    const lists = issuesOf(job('    notify: []\n    notifiers: []\n'))
    expect(lists[0]).to.include({ path: 'jobs[0].notifiers', line: 6, column: 5 })
    const flags = issuesOf(job('    notify: [{ type: webhook, url: "https://h.example", on: [success], onFailure: true }]\n'))
    expect(flags[0]).to.include({ path: 'jobs[0].notify[0].onFailure', line: 5 })
    const smtp = issuesOf(job('    notifiers: [{ type: email, smtp: { host: h }, smtpHost: h, from: a@b.c, to: [d@e.f] }]\n'))
    expect(smtp[0]).to.include({ path: 'jobs[0].notifiers[0].smtpHost', line: 5 })
    const limits = issuesOf('logLimits: { jobLogs: 5 }\nserver: { logLimits: { jobLogs: 6 } }\n')
    expect(limits[0]).to.include({ path: 'server.logLimits', line: 2, column: 11 })
  })

  it('reports errors inside moved keys where they are written', () => {
    const issues = issuesOf(job('    notifiers:\n      - type: email\n        smtpHost: h\n        smtpPort: many\n        from: a@b.c\n        to: [d@e.f]\n'))
    expect(issues).to.have.length(1)
    expect(issues[0]).to.include({ path: 'jobs[0].notifiers[0].smtpPort', line: 8, column: 19 })
    const noHost = issuesOf(job('    notifiers:\n      - { type: email, smtpPort: 25, from: a@b.c, to: [d@e.f] }\n'))
    expect(noHost).to.deep.equal([{ path: 'jobs[0].notifiers[0].smtpHost', line: 6, column: 9, message: 'required key is missing' }])
    const unknown = issuesOf(job('', '[{ type: local, path: /a, excludes: [x], exlude: [y] }]'))
    expect(unknown[0]).to.include({ path: 'jobs[0].sources[0].exlude', line: 3, column: 55, message: 'unknown key "exlude"' })
  })

  it("notifiers: onSuccess/onFailure (both false = off), webhook method, email's flat keys, telegram", () => {
    const { config } = parse(
      job(`    notifiers:
      - { type: webhook, url: "https://h.example/x", method: put, onSuccess: true }
      - { type: webhook, url: "https://h.example/y", onSuccess: false, onFailure: false }
      - { type: email, smtpHost: mail, smtpPort: 465, useTLS: true, smtpUser: u, smtpPass: env:PW, from: a@b.c, to: [d@e.f] }
      - { type: telegram, botToken: "1:abc", chatId: -100123 }
`),
      { PW: 'smtp-pw' },
    )
    const [put, off, mail, tg] = config.jobs[0]!.notify
    expect(put).to.deep.include({ method: 'PUT', on: ['success'] })
    expect(off).to.deep.include({ on: [] })
    expect(mail).to.deep.include({ smtp: { host: 'mail', port: 465, secure: true, username: 'u', password: 'smtp-pw' }, on: ['failure'] })
    expect(tg).to.deep.include({ chatId: '-100123', apiBase: 'https://api.telegram.org', on: ['failure'] })
  })

  it('encryption: openssl by default, a cipher outside the list named with the supported ones; age stays', () => {
    expect(parse(job('    encryption: { password: pw }\n')).config.jobs[0]!.encryption).to.deep.equal({
      type: 'openssl',
      cipher: 'aes-256-cbc',
      password: 'pw',
    })
    expect(parse(job('    encryption: { type: openssl, cipher: aes-128-ctr, password: pw }\n')).config.jobs[0]!.encryption).to.deep.include({
      cipher: 'aes-128-ctr',
    })
    const bad = issuesOf(job('    encryption: { type: openssl, cipher: des-ede3-cbc, password: pw }\n'))
    expect(bad[0]).to.include({ path: 'jobs[0].encryption.cipher', line: 5, column: 42 })
    expect(bad[0]!.message).to.equal('unsupported cipher; supported: aes-256-cbc, aes-192-cbc, aes-128-cbc, aes-256-ctr, aes-192-ctr, aes-128-ctr')
    expect(parse(job('    encryption: { type: age, passphrase: pp }\n')).config.jobs[0]!.encryption).to.deep.equal({ type: 'age', passphrase: 'pp' })
  })

  it('defaultStorage must name a storage of the job; server.enabled false refuses an explicit ui.enabled true', () => {
    expect(parse(job('    defaultStorage: d\n')).config.jobs[0]!.defaultStorage).to.equal('d')
    expect(issuesOf(job('    defaultStorage: nas\n'))[0]).to.include({
      path: 'jobs[0].defaultStorage',
      line: 5,
      column: 21,
      message: 'no storage named "nas" in this job (storages: d)',
    })
    expect(issuesOf('server: { enabled: false, ui: { enabled: true } }\n')[0]).to.include({ path: 'server.ui.enabled', line: 1 })
    const scheduler = parse('server: { enabled: false, defaultLanguage: ru }\n').config.server
    expect(scheduler).to.include({ enabled: false, defaultLanguage: 'ru' })
    expect(issuesOf('server: { defaultLanguage: de }\n')[0]).to.include({ path: 'server.defaultLanguage' })
  })

  it('an env var that is not set is refused at its line and column, inside original keys too', () => {
    const issues = issuesOf(job('    notifiers: [{ type: telegram, botToken: env:TG_TOKEN, chatId: "1" }]\n'))
    expect(issues).to.deep.equal([{ path: 'jobs[0].notifiers[0].botToken', line: 5, column: 45, message: 'environment variable TG_TOKEN is not set' }])
  })
})
