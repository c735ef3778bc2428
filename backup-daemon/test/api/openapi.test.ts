import { validate, compileErrors } from '@readme/openapi-parser'
import { expect } from 'chai'
import { createApp } from '../../src/server/createApp.js'
import { FakeEngine } from './support/fakeEngine.js'
import { testConfig } from './support/testConfig.js'

interface Operation {
  security?: Record<string, string[]>[]
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[]
  responses: Record<string, { content?: Record<string, unknown> }>
}
type Doc = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, Operation>>; components: Record<string, Record<string, unknown>> }

async function load() {
  const app = createApp({ config: testConfig(), engine: new FakeEngine() })
  const res = await app.request('/api/v1/openapi')
  expect(res.status).to.equal(200)
  return { app, doc: (await res.json()) as Doc }
}

describe('api: OpenAPI document and docs page', () => {
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
    expect(documented).to.have.length(18)
  })

  it('declares the cookie security scheme on exactly the endpoints that need a session', async () => {
    const { doc } = await load()
    expect(doc.components.securitySchemes).to.deep.include({ cookieAuth: { type: 'apiKey', in: 'cookie', name: 'backup_session', description: (doc.components.securitySchemes as { cookieAuth: { description: string } }).cookieAuth.description } })
    const open = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([, op]) => !op.security).map(([m]) => `${m} ${path}`))
    expect(open.sort()).to.deep.equal(['get /auth/check', 'get /docs', 'get /openapi', 'get /settings', 'post /auth/login', 'post /auth/logout'])
  })

  it('documents tail as an integer 0..50000 with default 100, and Problem responses as application/problem+json', async () => {
    const { doc } = await load()
    const tail = doc.paths['/jobs/{name}/logs']!.get!.parameters!.find((p) => p.name === 'tail')!
    expect(tail.in).to.equal('query')
    expect(tail.schema).to.include({ type: 'integer', minimum: 0, maximum: 50000, default: 100 })
    const run = doc.paths['/jobs/{name}/run']!.post!
    expect(Object.keys(run.responses).sort()).to.deep.equal(['202', '400', '401', '403', '404', '409', '500', '503'])
    expect(run.responses['409']!.content).to.have.key('application/problem+json')
    expect(doc.paths['/jobs/{name}/logs/stream']!.get!.responses['200']!.content).to.have.key('text/event-stream')
    for (const name of ['JobSummary', 'JobStatus', 'LastResult', 'JobLog', 'SystemLog', 'Snapshot', 'RunStarted', 'CancelResult', 'AuthCheck', 'LoginResult', 'Settings', 'StreamFrame', 'Problem']) {
      expect(doc.components.schemas, name).to.have.property(name)
    }
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
