import { expect } from 'chai'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigError } from '../../src/config/ConfigError.js'
import { loadConfig } from '../../src/config/loadConfig.js'
import { tempDir } from './helpers.js'

const job = (extra: string) => `jobs:
  - name: j
    sources: [{ type: local, name: s, path: ./src }]
    storages: [{ type: local, name: d, path: ./b }]
${extra}`

describe('config: encryption, retention, notify, metrics', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())
  const load = async (text: string, env: NodeJS.ProcessEnv = {}) => {
    const file = join(tmp.dir, 'c.yaml')
    await writeFile(file, text)
    return loadConfig(file, env)
  }
  const issues = async (text: string, env: NodeJS.ProcessEnv = {}) => {
    const err = await load(text, env).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).to.be.instanceOf(ConfigError)
    return (err as ConfigError).issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`)
  }

  it('accepts every new key with its defaults; `password` is an alias of the passphrase', async () => {
    const config = await load(
      job(`    encryption: { type: age, password: env:PASS }
    retention: { last: 2, daily: 7, weekly: 4, monthly: 12 }
    notify:
      - { type: webhook, url: "https://hooks.example.test/x" }
      - type: email
        smtp: { host: smtp.example.test }
        from: a@example.test
        to: b@example.test
        on: [success, failure]
`) + 'server: { metrics: { enabled: false } }\n',
      { PASS: 'pp' },
    )
    const j = config.jobs[0]!
    expect(j.encryption).to.deep.equal({ type: 'age', passphrase: 'pp' })
    expect(j.retention).to.deep.equal({ last: 2, daily: 7, weekly: 4, monthly: 12 })
    expect(j.notify[0]).to.deep.equal({ type: 'webhook', url: 'https://hooks.example.test/x', method: 'POST', headers: {}, on: ['failure'], timeout: 10000 })
    expect(j.notify[1]).to.deep.include({ smtp: { host: 'smtp.example.test', port: 587, secure: false }, on: ['success', 'failure'] })
    expect(config.server.metrics).to.deep.equal({ enabled: false })
    expect((await load(job(''))).server.metrics).to.deep.equal({ enabled: true })
  })

  it('refuses bad entries with line, column and key', async () => {
    expect(await issues(job('    encryption: { type: age, passphrase: x, recipients: [age1abc] }\n'))).to.deep.equal([
      '5:57 jobs[0].encryption.recipients: age encrypts to a passphrase or to recipients, not both',
    ])
    expect(await issues(job('    encryption: { type: age, recipients: [ssh-ed25519 AAAA] }\n'))).to.have.length(1)
    expect((await issues(job('    retention: { hourly: 3 }\n')))[0]).to.include('jobs[0].retention.hourly: unknown key "hourly"')
    expect((await issues(job('    notify: [{ type: webhook, url: "ftp://x" }]\n')))[0]).to.include('jobs[0].notify[0].url: expected an http:// or https:// URL')
    expect((await issues(job('    notify: [{ type: pager, url: "https://x" }]\n')))[0]).to.include('jobs[0].notify[0].type: unknown type')
    expect((await issues(job('    notify: [{ type: webhook, url: "https://x", on: [sucess] }]\n')))[0]).to.include('jobs[0].notify[0].on[0]')
  })
})
