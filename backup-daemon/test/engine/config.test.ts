import { expect } from 'chai'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigError, type ConfigIssue } from '../../src/config/ConfigError.js'
import { loadConfig } from '../../src/config/loadConfig.js'
import type { LocalSourceConfig } from '../../src/sources/local/index.js'
import type { LocalStorageConfig } from '../../src/storages/local.js'
import { tempDir } from './helpers.js'

describe('config/loadConfig', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())

  const load = async (yaml: string, env: NodeJS.ProcessEnv = {}) => {
    const file = join(tmp.dir, 'c.yaml')
    await writeFile(file, yaml)
    return loadConfig(file, env)
  }
  const issuesOf = async (yaml: string, env: NodeJS.ProcessEnv = {}): Promise<ConfigIssue[]> => {
    const err = await load(yaml, env).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).to.be.instanceOf(ConfigError)
    return (err as ConfigError).issues
  }
  const job = (name: string, extra = '') => `  - name: ${name}
    schedule: "0 3 * * *"
    sources: [{ type: local, name: s, path: ./src }]
    storages: [{ type: local, name: d, path: ./out }]
${extra}`

  it("applies the defaults and resolves paths against the file's folder", async () => {
    const config = await load(`jobs:\n${job('nightly')}`)
    expect(config.server.address).to.equal('127.0.0.1:8080')
    expect(config.server.auth.enabled).to.equal(false)
    expect(config.dataDir).to.equal(join(tmp.dir, 'data'))
    expect(config.logs).to.deep.equal({
      system: true,
      perJob: true,
      directory: join(tmp.dir, 'data', 'logs'),
      maxSizeMB: 100,
      maxBackups: 7,
      maxAgeDays: 30,
      compress: true,
    })
    expect(config.logLimits).to.deep.equal({ jobLogs: 10000, systemLogs: 10000 })
    expect(config.server).to.include({ enabled: true, defaultLanguage: 'en' })
    const [nightly] = config.jobs
    // Omitted compression is plain tar, as in the original service.
    expect(nightly).to.include({ name: 'nightly', active: true, compression: 'tar' })
    expect(nightly!.storages[0]).to.include({ includeJobName: true })
    expect((nightly!.sources[0] as LocalSourceConfig).path).to.equal(join(tmp.dir, 'src'))
    expect((nightly!.storages[0] as LocalStorageConfig).path).to.equal(join(tmp.dir, 'out'))
  })

  it("reports an unknown key at the key's line and column", async () => {
    const issues = await issuesOf(`server:\n  address: "127.0.0.1:1"\n  adress: x\njobs: []\n`)
    expect(issues).to.deep.equal([{ path: 'server.adress', line: 3, column: 3, message: 'unknown key "adress"' }])
  })

  it('reports a wrong type at the value', async () => {
    const issues = await issuesOf(`logLimits:\n  jobLogs: many\n`)
    expect(issues).to.have.length(1)
    expect(issues[0]).to.include({ path: 'logLimits.jobLogs', line: 2, column: 12 })
    expect(issues[0]!.message).to.match(/expected number/)
  })

  it('reports a bad cron expression', async () => {
    const issues = await issuesOf(`jobs:\n${job('a').replace('0 3 * * *', '61 * * * *')}`)
    expect(issues).to.have.length(1)
    expect(issues[0]).to.include({ path: 'jobs[0].schedule', line: 3, column: 15 })
    expect(issues[0]!.message).to.match(/invalid cron expression/)
  })

  it('reports duplicate job, source and storage names, all at once', async () => {
    const second = `  - name: a
    sources: [{ type: local, name: s, path: . }, { type: local, name: s, path: . }]
    storages: [{ type: local, name: d, path: . }, { type: local, name: d, path: . }]
`
    const issues = await issuesOf(`jobs:\n${job('a')}${second}`)
    expect(issues.map((i) => [i.path, i.line, i.message])).to.deep.equal([
      ['jobs[1].name', 6, 'duplicate job name "a"'],
      ['jobs[1].sources[1].name', 7, 'duplicate source name "s"'],
      ['jobs[1].storages[1].name', 8, 'duplicate storage name "d"'],
    ])
  })

  it("refuses a source or restore target that names a restore drill's scratch database (a drill could drop it)", async () => {
    const second = `  - name: b
    sources: [{ type: postgresql, name: db, database: "postgres://u@h/backup_daemon_drill_7_0123456789ab" }]
    storages: [{ type: local, name: d, path: . }]
restore:
  databases:
    scratch: { type: mariadb, database: Backup_Daemon_Drill_x }
`
    const issues = await issuesOf(`jobs:\n${job('a')}${second}`)
    expect(issues.map((i) => i.path)).to.deep.equal(['jobs[1].sources[0].database', 'restore.databases.scratch.database'])
    for (const issue of issues) expect(issue.message).to.match(/starting with "backup_daemon_drill_": restore drills create and drop/)
  })

  it('drill.cms: takes source names of the job, of kinds that can answer the check; names the key otherwise', async () => {
    const sources = `    sources:
      - { type: sqlite, name: db, path: ./cms.db }
      - { type: local, name: media, path: ./media }
      - { type: postgresql, name: pg, database: "postgres://u@h/cms" }
    storages: [{ type: local, name: d, path: ./out }]
`
    const config = await load(
      `jobs:\n  - name: cms\n${sources}    drill: { cms: { database: db, uploads: media, collections: [{ slug: images, check: uploads }] } }\n`,
    )
    expect(config.jobs[0]!.drill!.cms).to.deep.equal({ database: 'db', uploads: 'media', collections: [{ slug: 'images', check: 'uploads', prefix: '' }] })
    // A PostgreSQL database is read too (the dump restored into a scratch database).
    const onPostgres = await load(`jobs:\n  - name: cms\n${sources}    drill: { cms: { database: pg, uploads: media } }\n`)
    expect(onPostgres.jobs[0]!.drill!.cms).to.deep.equal({ database: 'pg', uploads: 'media' })
    const issues = await issuesOf(`jobs:\n  - name: cms\n${sources}    drill: { cms: { database: media, uploads: nope, videos: media } }\n`)
    expect(issues.map((i) => [i.path, i.message])).to.deep.equal([
      ['jobs[0].drill.cms.database', 'source "media" is a local source: its kind cannot read its restored tables for the CMS check'],
      ['jobs[0].drill.cms.uploads', 'no source named "nope" in this job (sources: db, media, pg)'],
      ['jobs[0].drill.cms.videos', 'source "media" is a local source: its restored video ids cannot be listed by the CMS check'],
    ])
  })

  it('resolves env: secrets and names the key when the variable is missing', async () => {
    const yaml = `server:\n  secret: env:BD_SECRET\n  auth:\n    username: admin\n    password: env:BD_PASSWORD\n`
    const config = await load(yaml, { BD_SECRET: 's3cret', BD_PASSWORD: 'pw' })
    expect(config.server.secret).to.equal('s3cret')
    expect(config.server.auth).to.include({ enabled: true, password: 'pw' })
    const issues = await issuesOf(yaml, { BD_SECRET: 's3cret' })
    expect(issues).to.deep.equal([{ path: 'server.auth.password', line: 5, column: 15, message: 'environment variable BD_PASSWORD is not set' }])
  })

  it('reports unknown source types, missing keys and YAML syntax errors with positions', async () => {
    const issues = await issuesOf(`jobs:\n  - name: a\n    sources: [{ type: ftp, name: s }]\n    storages: []\n`)
    expect(issues.map((i) => i.path)).to.include.members(['jobs[0].sources[0].type', 'jobs[0].storages'])
    expect(issues.every((i) => i.line >= 3)).to.equal(true)
    const syntax = await issuesOf(`jobs:\n  - name: [unclosed\n`)
    expect(syntax[0]!.line).to.be.greaterThan(0)
  })

  it('reports an unreadable file as an issue without a position', async () => {
    const err = await loadConfig(join(tmp.dir, 'missing.yaml')).catch((e: unknown) => e)
    expect(err).to.be.instanceOf(ConfigError)
    expect((err as ConfigError).issues[0]).to.include({ line: 0, column: 0 })
  })
})
