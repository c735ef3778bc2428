import { expect } from 'chai'
import { Hono } from 'hono'
import { createApp } from '../../src/server/createApp.js'
import { serveUi } from '../../src/ui/serveUi.js'
import { realEngine, type RealEngine } from './support/realEngine.js'
import { loginCookie } from './support/requests.js'
import { testConfig } from './support/testConfig.js'

const problemKeys = ['detail', 'error', 'errors', 'instance', 'status', 'title', 'type']

describe('api: errors and headers', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real.close())

  it('unknown paths under /api/v1 are 404 Problems, also without a session', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine })
    for (const path of ['/api/v1/nothing', '/api/v1', '/api/v1/jobs/nightly/unknown', '/api/v1/jobs/', '/api/v2/jobs']) {
      const res = await app.request(path)
      expect(res.status, path).to.equal(404)
      expect(res.headers.get('content-type'), path).to.equal('application/problem+json')
      const body = await res.json()
      expect(Object.keys(body).sort()).to.deep.equal(problemKeys)
      expect(body.instance).to.equal(path)
      expect(body.error).to.equal(body.detail)
    }
  })

  it('every Problem carries error = detail (the original web client shows {error}): validation, 401, 404, 405, 409', async () => {
    const engine = real.engine
    const app = createApp({ config: testConfig(), engine })
    const cookie = await loginCookie(app)
    const answers = [
      await app.request('/api/v1/jobs/nightly/logs?tail=-1', { headers: { cookie } }),
      await app.request('/api/v1/jobs'),
      await app.request('/api/v1/jobs/nope/status', { headers: { cookie } }),
      await app.request('/api/v1/jobs/nightly/run', { headers: { cookie } }),
      await app.request('/api/v1/jobs/nightly/cancel', { method: 'POST', headers: { cookie } }),
      await app.request('/api/v1/auth/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' }),
      await app.request('/no/such/page'),
    ]
    expect(answers.map((r) => r.status)).to.deep.equal([400, 401, 404, 405, 409, 400, 404])
    for (const res of answers) {
      const body = await res.json()
      expect(Object.keys(body).sort(), res.url).to.deep.equal(problemKeys)
      expect(body.error, res.url).to.be.a('string').and.equal(body.detail).and.not.equal('')
    }
    expect((await (await app.request('/api/v1/jobs/nightly/logs?tail=-1', { headers: { cookie } })).json()).error).to.equal(
      'request validation failed: query.tail',
    )
  })

  it('a known path with the wrong method is a 405 Problem with Allow', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine })
    const res = await app.request('/api/v1/jobs/nightly/run', { method: 'GET' })
    expect(res.status).to.equal(405)
    expect(res.headers.get('allow')).to.equal('POST')
    expect((await app.request('/api/v1/settings', { method: 'DELETE' })).headers.get('allow')).to.equal('GET, HEAD')
  })

  it('an unexpected failure is a 500 Problem that reveals nothing of the error', async () => {
    const engine = real.engine
    const app = createApp({ config: testConfig(), engine })
    const cookie = await loginCookie(app)
    // A fault the real engine cannot be made to hit on demand (listing jobs reads memory): this one call throws.
    const listJobs = engine.listJobs
    engine.listJobs = () => {
      throw new Error('EACCES: /srv/secret/path password=hunter2')
    }
    const original = console.error
    const printed: unknown[] = []
    console.error = (...args: unknown[]) => void printed.push(args)
    try {
      const res = await app.request('/api/v1/jobs', { headers: { cookie } })
      expect(res.status).to.equal(500)
      expect(res.headers.get('content-type')).to.equal('application/problem+json')
      const text = await res.text()
      expect(text).not.to.include('secret').and.not.to.include('hunter2').and.not.to.include('EACCES')
      expect(JSON.parse(text)).to.include({ detail: 'internal error', error: 'internal error' })
    } finally {
      console.error = original
      engine.listJobs = listJobs
    }
    // Not printed by the server itself: `serve` prints the system log's lines (the journal), once.
    expect(printed).to.have.length(0)
    // Operators see what failed (name and message) in the system log; the client never does.
    expect(engine.logs.tail({ kind: 'system' }, 10).join('\n')).to.include('internal error on GET /api/v1/jobs: Error: EACCES')
  })

  it('sets nosniff, no framing, no referrer and no-store on API responses, errors included', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine })
    for (const path of ['/api/v1/settings', '/api/v1/jobs', '/api/v1/nothing']) {
      const res = await app.request(path)
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff')
      expect(res.headers.get('x-frame-options')).to.equal('DENY')
      expect(res.headers.get('content-security-policy')).to.include("frame-ancestors 'none'")
      expect(res.headers.get('referrer-policy')).to.equal('no-referrer')
      expect(res.headers.get('cache-control')).to.equal('no-store')
    }
  })

  it('mounts the UI at / when enabled, but API paths never fall through to it', async () => {
    const ui = () => new Hono().get('*', (c) => c.html('<p>ui</p>'))
    const app = createApp({ config: testConfig({ ui: true }), engine: real.engine, ui })
    expect(await (await app.request('/')).text()).to.equal('<p>ui</p>')
    expect(await (await app.request('/jobs/nightly')).text()).to.equal('<p>ui</p>')
    const api = await app.request('/api/v1/nothing')
    expect(api.status).to.equal(404)
    expect(api.headers.get('content-type')).to.equal('application/problem+json')
    expect((await app.request('/api/v1/jobs')).status).to.equal(401)
    const off = createApp({ config: testConfig({ ui: false }), engine: real.engine, ui })
    expect((await off.request('/')).status).to.equal(404)
  })

  it('with the real web UI mounted, API 404s stay Problems and the UI keeps its own CSP', async () => {
    const app = createApp({ config: testConfig({ ui: true }), engine: real.engine, ui: serveUi })
    const page = await app.request('/')
    expect(page.status).to.equal(200)
    expect(page.headers.get('content-type')).to.match(/^text\/html/)
    expect(page.headers.get('content-security-policy')).to.include("script-src 'self'")
    expect(page.headers.get('x-content-type-options')).to.equal('nosniff')
    for (const path of ['/api/v1/nothing', '/api/v1/jobs/nightly/nope', '/api/other']) {
      const res = await app.request(path)
      expect(res.status, path).to.equal(404)
      expect(res.headers.get('content-type'), path).to.equal('application/problem+json')
    }
  })
})
