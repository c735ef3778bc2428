import { expect } from 'chai'
import type { JobConfig } from '../../src/config/types.js'
import { formatSize, redactJob } from '../../src/engine/redactJob.js'

describe('engine/redactJob (JobDetail)', () => {
  const job = {
    name: 'j',
    schedule: '0 3 * * *',
    active: true,
    compression: 'tar.gz',
    defaultStorage: 'cloud',
    beforeScript: 'systemctl stop app',
    retention: { last: 7 },
    encryption: { type: 'openssl', cipher: 'aes-256-cbc', password: 'enc-secret' },
    split: { chunkSize: 1073741824 },
    sources: [
      { type: 'local', name: 'files', path: '/srv', exclude: ['*.tmp'] },
      { type: 'mongodb', name: 'db', uri: 'mongodb://backup:hunter2@db.local:27017/app' },
      {
        type: 'postgresql',
        name: 'pg',
        database: 'app',
        user: 'postgres',
        password: 'pg-secret',
        params: ['--no-owner', '--dbname=postgres://u:pgurlpw@h/db'],
      },
    ],
    storages: [
      {
        type: 's3',
        name: 'cloud',
        bucket: 'b',
        endpoint: 'https://user:pw123@minio.local',
        accessKeyId: 'AKIA123',
        secretAccessKey: 'shh',
        includeJobName: true,
      },
      {
        type: 'sftp',
        name: 'off',
        host: 'sftp.example',
        port: 22,
        username: 'backup',
        password: 'sftp-pass',
        privateKey: '/etc/key',
        passphrase: 'kp',
        path: '/snapr',
        strictHostKey: false,
      },
      { type: 'webdav', name: 'dav', url: 'https://dav:davpw@dav.example:8443/remote.php', password: 'davpass', path: 'snapr' },
    ],
    notify: [
      {
        type: 'webhook',
        name: 'ops',
        url: 'https://hooks.example.com/services/T0/abc123secret',
        method: 'POST',
        headers: { Authorization: 'Bearer hdr-secret' },
        on: ['success', 'failure'],
        timeout: 10000,
      },
      { type: 'telegram', botToken: '123:tg-token-secret', chatId: '-100123', apiBase: 'https://api.telegram.org', on: ['failure'], timeout: 10000 },
      {
        type: 'email',
        smtp: { host: 'smtp.example.com', port: 587, secure: false, username: 'u', password: 'smtp-pass' },
        from: 'a@x.example',
        to: ['b@x.example'],
        on: [],
        timeout: 10000,
      },
    ],
  } as unknown as JobConfig

  it('never shows a secret: flags and hosts instead, credentials cut from URLs and connection strings', () => {
    const out = JSON.stringify(redactJob(job))
    for (const secret of [
      'hunter2',
      'pg-secret',
      'pgurlpw',
      'AKIA123',
      'shh',
      'pw123',
      'sftp-pass',
      '/etc/key',
      'kp"',
      'davpass',
      'davpw',
      'abc123secret',
      'hdr-secret',
      'tg-token-secret',
      'smtp-pass',
      'enc-secret',
      'systemctl',
    ]) {
      expect(out, secret).to.not.include(secret)
    }
    expect(job.sources[1]).to.deep.include({ uri: 'mongodb://backup:hunter2@db.local:27017/app' })
  })

  it("has the original's JobDetail fields and spellings", () => {
    const detail = redactJob(job)
    expect(detail).to.deep.include({
      name: 'j',
      schedule: '0 3 * * *',
      defaultStorage: 'cloud',
      compression: 'tar.gz',
      retention: { last: 7 },
      hasBeforeScript: true,
      hasAfterScript: false,
      encryption: { type: 'openssl', cipher: 'aes-256-cbc' },
      split: { chunkSize: '1GB', chunkSizeBytes: 1073741824 },
    })
    expect(detail.sources[0]).to.deep.equal({ type: 'local', name: 'files', path: '/srv', excludes: ['*.tmp'] })
    expect(detail.sources[1]).to.deep.equal({ type: 'mongodb', name: 'db', hasUri: true })
    expect(detail.sources[2]).to.deep.equal({
      type: 'postgresql',
      name: 'pg',
      database: 'app',
      username: 'postgres',
      extraParams: { 'no-owner': '', dbname: 'postgres://h/db' },
    })
    expect(detail.storages[0]).to.deep.equal({ type: 's3', name: 'cloud', bucket: 'b', endpoint: 'https://minio.local', includeJobName: true })
    expect(detail.storages[1]).to.deep.equal({
      type: 'sftp',
      name: 'off',
      host: 'sftp.example',
      port: 22,
      username: 'backup',
      path: '/snapr',
      strictHostKey: false,
      hasPrivateKey: true,
    })
    expect(detail.storages[2]).to.deep.equal({ type: 'webdav', name: 'dav', path: 'snapr', hasUrl: true, urlHost: 'dav.example:8443' })
    expect(detail.notifiers[0]).to.deep.equal({
      type: 'webhook',
      name: 'ops',
      onSuccess: true,
      onFailure: true,
      urlHost: 'hooks.example.com',
      method: 'POST',
      on: ['success', 'failure'],
      timeout: 10000,
    })
    expect(detail.notifiers[1]).to.deep.include({ type: 'telegram', onSuccess: false, onFailure: true, chatId: '-100123' })
    expect(detail.notifiers[2]).to.deep.include({
      type: 'email',
      onSuccess: false,
      onFailure: false,
      from: 'a@x.example',
      to: ['b@x.example'],
      smtpHost: 'smtp.example.com',
    })
  })

  it('leaves out what is not set, and shows age without its passphrase', () => {
    const bare = {
      name: 'b',
      schedule: '',
      active: false,
      compression: 'tar',
      sources: [],
      storages: [],
      notify: [],
      encryption: { type: 'age', passphrase: 'age-secret' },
    } as unknown as JobConfig
    const detail = redactJob(bare)
    expect(detail).to.not.have.any.keys('defaultStorage', 'retention', 'split', 'timezone')
    expect(detail.encryption).to.deep.equal({ type: 'age', hasPassphrase: true })
    expect(JSON.stringify(detail)).to.not.include('age-secret')
  })

  it('formats sizes as the original writes them', () => {
    expect(formatSize(10 * 1048576)).to.equal('10MB')
    expect(formatSize(1536)).to.equal('1536B')
    expect(formatSize(2048)).to.equal('2KB')
    expect(formatSize(1024 ** 4)).to.equal('1TB')
  })
})
