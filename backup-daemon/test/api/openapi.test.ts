import { validate, compileErrors } from '@readme/openapi-parser'
import { expect } from 'chai'
import { createApp } from '../../src/server/createApp.js'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { FakeEngine, fakeJob, fakeSnapshotView, type FakeSnapshot } from './support/fakeEngine.js'
import { heldJob, realEngine, type RealEngine } from './support/realEngine.js'
import { loginCookie } from './support/requests.js'
import { testConfig } from './support/testConfig.js'
import { validateSchema } from './support/validateSchema.js'

interface Operation {
  security?: Record<string, string[]>[]
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[]
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>
}
type Doc = {
  openapi: string
  servers: { url: string }[]
  paths: Record<string, Record<string, Operation>>
  components: Record<string, Record<string, unknown>>
}

const engines: RealEngine[] = []

async function load() {
  const real = await realEngine()
  engines.push(real)
  const app = createApp({ config: testConfig(), engine: real.engine })
  const res = await app.request('/api/v1/openapi')
  expect(res.status).to.equal(200)
  return { app, doc: (await res.json()) as Doc }
}

describe('api: OpenAPI document and docs page', function () {
  this.timeout(60_000)
  afterEach(async () => {
    for (const real of engines.splice(0)) await real.close()
  })

  it('is a valid OpenAPI 3.1 document, public, with no warnings', async () => {
    const { doc } = await load()
    expect(doc.openapi).to.equal('3.1.0')
    expect(doc.servers).to.deep.equal([{ url: '/api/v1' }])
    const result = await validate(structuredClone(doc) as never)
    expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true)
    expect(result.warnings).to.deep.equal([])
  })

  it('lists exactly the operations the app serves under /api/v1', async () => {
    const { app, doc } = await load()
    const served = app.routes
      .filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/v1/'))
      .map((r) => `${r.method} ${r.path.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')}`)
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
    expect([...new Set(served)].sort()).to.deep.equal(documented.sort())
    expect(documented).to.have.length(27)
  })

  it('declares the cookie security scheme on exactly the endpoints that need a session', async () => {
    const { doc } = await load()
    expect(doc.components.securitySchemes).to.deep.include({
      cookieAuth: {
        type: 'apiKey',
        in: 'cookie',
        name: 'backup_session',
        description: (doc.components.securitySchemes as { cookieAuth: { description: string } }).cookieAuth.description,
      },
    })
    const open = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.security?.length === 0)
        .map(([m]) => `${m} ${path}`),
    )
    expect(open.sort()).to.deep.equal(['get /auth/check', 'get /docs', 'get /openapi', 'get /settings', 'get /status', 'post /auth/login', 'post /auth/logout'])
    // Every other operation names the session scheme: none is left without a security requirement.
    const unmarked = Object.values(doc.paths).flatMap((item) => Object.values(item).filter((op) => !op.security))
    expect(unmarked).to.deep.equal([])
  })

  it('documents tail as an integer from 0 with default 100 (larger values capped, so no maximum), and Problem responses as application/problem+json', async () => {
    const { doc } = await load()
    const tail = doc.paths['/jobs/{name}/logs']!.get!.parameters!.find((p) => p.name === 'tail')!
    expect(tail.in).to.equal('query')
    expect(tail.schema).to.include({ type: 'integer', minimum: 0, default: 100 })
    expect(tail.schema).not.to.have.property('maximum')
    expect((tail as { description?: string }).description).to.match(/capped to 50000/)
    const run = doc.paths['/jobs/{name}/run']!.post!
    expect(Object.keys(run.responses).sort()).to.deep.equal(['202', '400', '401', '403', '404', '409', '500', '503'])
    expect(run.responses['409']!.content).to.have.key('application/problem+json')
    expect(doc.paths['/jobs/{name}/logs/stream']!.get!.responses['200']!.content).to.have.key('text/event-stream')
    for (const name of [
      'JobSummary',
      'JobStatus',
      'LastResult',
      'JobLog',
      'SystemLog',
      'Snapshot',
      'RunStarted',
      'CancelResult',
      'AuthCheck',
      'LoginResult',
      'Settings',
      'StreamFrame',
      'Problem',
      'DaemonStatus',
    ]) {
      expect(doc.components.schemas, name).to.have.property(name)
    }
  })

  it('marks as optional exactly the fields the daemon leaves out when empty, and documents cancelling and the Snapshot additions', async () => {
    const { doc } = await load()
    const schemas = doc.components.schemas as Record<string, { required: string[]; properties: Record<string, { enum?: unknown[] }> }>
    expect(schemas.JobSummary!.required.sort()).to.deep.equal(['active', 'name', 'schedule', 'sourcesCount', 'status', 'storagesCount'])
    expect(schemas.JobStatus!.required.sort()).to.deep.equal(['active', 'name', 'status'])
    expect(schemas.LastResult!.required).to.deep.equal(['success'])
    expect(schemas.JobSummary!.properties.status!.enum).to.deep.equal(['idle', 'running'])
    expect(schemas.JobStatus!.properties.cancelling!.enum).to.deep.equal([true])
    expect(schemas.Snapshot!.required).to.include.members(['id', 'name', 'checksummed', 'damaged', 'storage', 'storages']).and.not.include('damageReason')
    expect(schemas.Problem!.required).to.include('error')
    expect(schemas.DaemonStatus!.required.sort()).to.deep.equal(['jobsCount', 'status', 'uptime', 'version'])
    expect(schemas.Settings!.required).to.include('defaultLanguage')
  })

  it('describes every JSON body the API serves: each response validates against its documented schema', async () => {
    // The real engine: a held job with split snapshots (one with a part removed), a never-run job, a failed run.
    const real = await realEngine({
      jobs: [
        heldJob('nightly', '    split: { chunkSize: 65536 }\n'),
        { name: 'fresh' },
        { name: 'broken', extra: '    beforeScript: echo disk full >&2; exit 3\n' },
      ],
    })
    engines.push(real)
    const run = real.runJob('nightly')
    await real.release()
    const intact = await run
    const second = real.runJob('nightly')
    await real.release()
    const damaged = await second
    const folder = (await real.engine.listSnapshots('nightly')).find((snapshot) => snapshot.name === damaged)!.path
    await rm(join(real.dir, 'backups', folder, `${damaged}.part-aab`))
    real.engine.run('broken', 'manual')
    expect((await real.engine.whenIdle('broken')).status).to.equal('failed')
    real.engine.logs.append({ kind: 'job', job: 'nightly' }, 'a line')
    const app = createApp({ config: testConfig(), engine: real.engine })
    const { doc } = await load()
    const cookie = await loginCookie(app)
    const components = doc.components.schemas as Record<string, Record<string, unknown>>
    const seen = new Set<string>()
    const check = async (target: typeof app, calls: [method: string, template: string, path: string, session: boolean][]) => {
      for (const [method, template, path, session] of calls) {
        const init: RequestInit = { method: method.toUpperCase(), headers: session ? { cookie } : {} }
        if (template === '/auth/login')
          Object.assign(init, { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'wrong' }) })
        const res = await target.request(`/api/v1${path}`, init)
        const where = `${method.toUpperCase()} ${path} -> ${res.status}`
        const documented = doc.paths[template]![method]!.responses[String(res.status)]
        expect(documented, `${where} is not documented`).to.not.equal(undefined)
        const type = res.headers.get('content-type')!.split(';')[0]!
        const schema = documented!.content?.[type]?.schema
        expect(schema, `${where}: ${type} is not documented`).to.not.equal(undefined)
        const errors = validateSchema(await res.json(), schema!, components)
        expect(errors, where).to.deep.equal([])
        seen.add(`${template} ${res.status}`)
      }
    }
    await check(app, [
      ['get', '/settings', '/settings', false],
      ['get', '/auth/check', '/auth/check', false],
      ['get', '/auth/check', '/auth/check', true],
      ['get', '/status', '/status', false],
      ['get', '/status', '/status', true],
      ['get', '/jobs', '/jobs', true],
      ['get', '/jobs', '/jobs', false],
      ...['nightly', 'fresh', 'broken', 'nope'].map((job) => ['get', '/jobs/{name}/status', `/jobs/${job}/status`, true] as [string, string, string, boolean]),
      ['get', '/jobs/{name}/config', '/jobs/nightly/config', true],
      ['get', '/jobs/{name}/config', '/jobs/nope/config', true],
      ['post', '/jobs/{name}/run', '/jobs/nightly/run', true],
      ['post', '/jobs/{name}/run', '/jobs/nightly/run', true],
      ['post', '/jobs/{name}/cancel', '/jobs/fresh/cancel', true],
      ['get', '/jobs/{name}/status', '/jobs/nightly/status', true],
      ['get', '/jobs', '/jobs', true],
      ['post', '/jobs/{name}/cancel', '/jobs/nightly/cancel', true],
      ['get', '/jobs/{name}/backups', '/jobs/nightly/backups', true],
      ['get', '/jobs/{name}/backups', '/jobs/nope/backups', true],
      ['get', '/jobs/{name}/backups/{filename}/download', '/jobs/nightly/backups/..%2Fx/download', true],
      ['get', '/jobs/{name}/backups/{filename}/download', '/jobs/nightly/backups/zzz/download', true],
      ['get', '/jobs/{name}/backups/{filename}/download', `/jobs/nightly/backups/${damaged}/download`, true],
      ['get', '/jobs/{name}/logs', '/jobs/nightly/logs?tail=5', true],
      ['get', '/jobs/{name}/logs', '/jobs/fresh/logs', true],
      ['get', '/jobs/{name}/logs', '/jobs/broken/logs', true],
      ['get', '/jobs/{name}/logs', '/jobs/nightly/logs?tail=x', true],
      ['get', '/logs/system', '/logs/system', true],
      ['post', '/auth/login', '/auth/login', false],
      ['post', '/auth/logout', '/auth/logout', false],
    ])
    expect(intact).to.not.equal(damaged)
    // The in-memory double for the two states the real engine cannot be held in or reach here: a run shown as
    // "cancelling" (a cancelled real run ends within milliseconds) and a set no storage can stream whole (501).
    const fake = new FakeEngine([fakeJob('nightly'), fakeJob('stopping', { status: 'running', cancelling: true })])
    const view = (name: string, extra: Partial<FakeSnapshot['view']> = {}): FakeSnapshot['view'] => fakeSnapshotView(name, { size: 3, ...extra })
    fake.snapshots.set('nightly', [
      { view: view('b.tar.gz', { isSplit: true, partsCount: 2, checksummed: false }), fullDownloadUnsupported: true, parts: [Buffer.from('x')] },
    ])
    await check(createApp({ config: testConfig(), engine: fake }), [
      ['get', '/jobs/{name}/status', '/jobs/stopping/status', true],
      ['get', '/jobs', '/jobs', true],
      ['get', '/jobs/{name}/backups', '/jobs/nightly/backups', true],
      ['get', '/jobs/{name}/backups/{filename}/download', '/jobs/nightly/backups/b.tar.gz/download', true],
    ])
    // The calls reached the shapes this test is about.
    expect([...seen]).to.include.members([
      '/status 200',
      '/jobs/{name}/status 404',
      '/jobs/{name}/run 409',
      '/jobs/{name}/cancel 200',
      '/jobs/{name}/backups/{filename}/download 400',
      '/jobs/{name}/backups/{filename}/download 501',
      '/jobs 401',
      '/auth/login 401',
    ])
  })

  it('the schema check itself refuses undeclared, missing and mistyped fields', async () => {
    const { doc } = await load()
    const components = doc.components.schemas as Record<string, Record<string, unknown>>
    const ref = { $ref: '#/components/schemas/JobStatus' }
    expect(validateSchema({ name: 'x', active: true, status: 'idle' }, ref, components)).to.deep.equal([])
    expect(validateSchema({ name: 'x', active: true, status: 'cancelling' }, ref, components)).to.have.length(1)
    expect(validateSchema({ name: 'x', active: true, status: 'idle', extra: 1 }, ref, components)).to.deep.equal(['$: "extra" is not declared'])
    expect(validateSchema({ name: 'x', status: 'idle' }, ref, components)).to.deep.equal(['$: missing required "active"'])
    expect(validateSchema({ name: 'x', active: true, status: 'idle', lastResult: { success: 'yes' } }, ref, components)).to.deep.equal([
      '$.lastResult.success: expected boolean, got string',
    ])
    expect(validateSchema({ name: 'x', active: true, status: 'idle', cancelling: false }, ref, components)).to.have.length(1)
  })

  it('serves an offline docs page whose CSP allows only its own script and same-origin fetches', async () => {
    const { app } = await load()
    const res = await app.request('/api/v1/docs')
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.match(/^text\/html/)
    const html = await res.text()
    expect(html).to.include("fetch('openapi'")
    expect(html).not.to.match(/https?:\/\//)
    const csp = res.headers.get('content-security-policy')!
    expect(csp).to.match(/script-src 'sha256-[A-Za-z0-9+/=]+'/)
    expect(csp).to.include("connect-src 'self'")
  })
})
