/**
 * A test per option proving it acts; `disabled: true` (or the deprecated `enabled: false`) leaves the config untouched; custom `routes.api` is honoured.
 */
import { expect } from 'chai'
import type { Config, PayloadRequest, SanitizedConfig } from 'payload'
import { parse } from 'yaml'

import { generateOpenAPIDocument, openapiPlugin } from '../src/index.js'
import { API_ROUTE } from './fixture/fixtureConfig.js'
import { fixtureDocument, fixtureSanitized, operationKeys, sanitizedWith } from './support/fixtureDocument.js'
import { startLiveCms } from './support/liveCms.js'

const raw = (): Config =>
  ({ secret: 'x', routes: { api: '/cms-api' }, endpoints: [{ path: '/mine', method: 'get', handler: () => Response.json({}) }] }) as unknown as Config
const paths = (c: Config) => (c.endpoints ?? []).map((e) => `${e.method} ${e.path}`)

describe('options', function () {
  this.timeout(60_000)

  it('disabled: true returns the config untouched', () => {
    const config = raw()
    const before = paths(config)
    const out = openapiPlugin({ disabled: true })(config)
    expect(out).to.equal(config)
    expect(paths(out)).to.deep.equal(before)
  })

  it('enabled: false (deprecated alias) still disables; disabled wins over it', () => {
    const config = raw()
    expect(openapiPlugin({ enabled: false })(config)).to.equal(config)
    expect(openapiPlugin({ enabled: true })(raw())).to.not.equal(config)
    expect(paths(openapiPlugin({ disabled: false, enabled: false })(raw()))).to.include('get /openapi.json')
    expect(openapiPlugin({ disabled: true, enabled: true })(config)).to.equal(config)
  })

  it('enabled by default: adds the spec, YAML, docs and asset endpoints after the existing ones, once even if applied twice', () => {
    const once = openapiPlugin()(raw())
    expect(paths(once)).to.deep.equal(['get /mine', 'get /openapi.json', 'get /openapi.yaml', 'get /docs', 'get /docs/:asset'])
    expect(paths(openapiPlugin()(once))).to.deep.equal(paths(once))
  })

  it('specRoute moves the description (relative to routes.api or with it); false removes it and the docs page', () => {
    expect(paths(openapiPlugin({ specRoute: '/spec/api.json' })(raw()))).to.include.members(['get /spec/api.json', 'get /spec/api.yaml'])
    expect(paths(openapiPlugin({ specRoute: '/cms-api/schema.json' })(raw()))).to.include.members(['get /schema.json', 'get /schema.yaml'])
    expect(paths(openapiPlugin({ specRoute: false })(raw()))).to.deep.equal(['get /mine'])
  })

  it('docsRoute moves the docs page; false removes it', () => {
    expect(paths(openapiPlugin({ docsRoute: '/reference' })(raw()))).to.include.members(['get /reference', 'get /reference/:asset'])
    expect(paths(openapiPlugin({ docsRoute: false })(raw()))).to.deep.equal(['get /mine', 'get /openapi.json', 'get /openapi.yaml'])
  })

  it('serves JSON and the same document as YAML over HTTP under the custom routes.api', async () => {
    const cms = await startLiveCms()
    const json = await (await fetch(`${cms.url}${API_ROUTE}/openapi.json`)).json()
    const yamlRes = await fetch(`${cms.url}${API_ROUTE}/openapi.yaml`)
    expect(yamlRes.headers.get('content-type')).to.match(/^application\/yaml/)
    expect(parse(await yamlRes.text())).to.deep.equal(json)
    expect((await fetch(`${cms.url}/api/openapi.json`)).status).to.equal(404)
  })

  it('routes.api prefixes every documented path', async () => {
    const keys = operationKeys(await fixtureDocument())
    expect(keys.length).to.be.greaterThan(50)
    for (const k of keys) expect(k.split(' ')[1]).to.match(/^\/cms-api\//)
  })

  it('info and servers', async () => {
    const doc = await fixtureDocument({ info: { title: 'T', version: '9', description: 'D' }, servers: [{ url: 'https://cms.example.com' }] })
    expect(doc.info).to.deep.equal({ title: 'T', version: '9', description: 'D' })
    expect(doc.servers).to.deep.equal([{ url: 'https://cms.example.com' }])
    expect((await fixtureDocument()).servers).to.deep.equal([{ url: '/' }])
  })

  it('includeAuth: false drops every auth and access operation', async () => {
    const on = operationKeys(await fixtureDocument())
    const off = operationKeys(await fixtureDocument({ includeAuth: false }))
    expect(on).to.include.members(['POST /cms-api/users/login', 'GET /cms-api/users/me', 'GET /cms-api/access', 'POST /cms-api/posts/access/{id}'])
    expect(
      off.filter((k) => /\/(login|logout|me|refresh-token|forgot-password|reset-password|unlock|init|first-register|access|reveal)(\/|$)/.test(k)),
    ).to.deep.equal([])
    expect(off).to.include('POST /cms-api/users')
  })

  it('includeAdminAuth: false drops init, first-register and the access endpoints but keeps login', async () => {
    const off = operationKeys(await fixtureDocument({ includeAdminAuth: false }))
    expect(off).to.include('POST /cms-api/users/login')
    expect(off.filter((k) => /\/(init|first-register|access)(\/|$)/.test(k))).to.deep.equal([])
  })

  it('includeVersions: false drops the version endpoints', async () => {
    expect(operationKeys(await fixtureDocument()).filter((k) => k.includes('/versions'))).to.have.length(6)
    expect(operationKeys(await fixtureDocument({ includeVersions: false })).filter((k) => k.includes('/versions'))).to.deep.equal([])
  })

  it('includeJobs: false drops the jobs endpoints', async () => {
    expect(operationKeys(await fixtureDocument())).to.include.members(['GET /cms-api/payload-jobs/run', 'GET /cms-api/payload-jobs/handle-schedules'])
    expect(operationKeys(await fixtureDocument({ includeJobs: false })).filter((k) => k.includes('payload-jobs'))).to.deep.equal([])
  })

  it("includeSystem: true documents Payload's own collections (preferences' admin routes stay out)", async () => {
    expect(operationKeys(await fixtureDocument()).filter((k) => k.includes('payload-preferences'))).to.deep.equal([])
    const on = operationKeys(await fixtureDocument({ includeSystem: true }))
    expect(on).to.include.members(['GET /cms-api/payload-preferences', 'GET /cms-api/payload-locked-documents/{id}', 'POST /cms-api/payload-jobs'])
    // GET and DELETE /:key shadow /:id in Payload's router: neither is documented.
    expect(on).to.not.include('GET /cms-api/payload-preferences/{id}')
    expect(on).to.not.include('GET /cms-api/payload-preferences/{key}')
  })

  it('excludeOperations removes by operationId or METHOD path, custom operations included', async () => {
    const keys = operationKeys(await fixtureDocument({ excludeOperations: ['findPosts', 'DELETE /cms-api/posts/{id}', 'getHealth', 'getPostsByIdSummary'] }))
    expect(keys).to.not.include.members(['GET /cms-api/posts', 'DELETE /cms-api/posts/{id}', 'GET /cms-api/health', 'GET /cms-api/posts/{id}/summary'])
    expect(keys).to.include('GET /cms-api/posts/{id}')
  })

  it('includeCollections / excludeCollections', async () => {
    const only = operationKeys(await fixtureDocument({ includeCollections: ['posts'] }))
    expect(only.filter((k) => /\/cms-api\/(users|media|categories|tags|editors)/.test(k))).to.deep.equal([])
    expect(only).to.include('GET /cms-api/posts')
    const without = operationKeys(await fixtureDocument({ excludeCollections: ['media'] }))
    expect(without.filter((k) => k.includes('/media'))).to.deep.equal([])
    expect(without).to.include('GET /cms-api/posts')
  })

  it('includeGlobals / excludeGlobals', async () => {
    const only = operationKeys(await fixtureDocument({ includeGlobals: ['footer'] }))
    expect(only.filter((k) => k.includes('/globals/'))).to.deep.equal([
      'POST /cms-api/globals/footer/access',
      'GET /cms-api/globals/footer',
      'POST /cms-api/globals/footer',
    ])
    expect(operationKeys(await fixtureDocument({ excludeGlobals: ['settings', 'footer'] })).filter((k) => k.includes('/globals/'))).to.deep.equal([])
  })

  /** Calls one of the plugin's own endpoints of a sanitized config as Payload's router would. */
  const serve = async (config: SanitizedConfig, path: string, req: { user?: object; headers?: Record<string, string> } = {}) => {
    const endpoint = config.endpoints.find((e) => e.path === path || e.path === '/docs/:asset')!
    const asset = endpoint.path === '/docs/:asset' ? path.split('/').pop() : undefined
    return endpoint.handler({
      headers: new Headers(req.headers),
      payload: { config },
      routeParams: asset ? { asset } : {},
      url: `http://cms.local${API_ROUTE}${path}`,
      user: req.user ?? null,
    } as unknown as PayloadRequest)
  }

  it('access: by default anyone reads the description and the docs page; a function narrows both (403)', async () => {
    const open = await sanitizedWith(undefined, {})
    expect((await serve(open, '/openapi.json')).status).to.equal(200)
    const guarded = await sanitizedWith(undefined, { access: ({ req }) => Boolean(req.user) })
    for (const path of ['/openapi.json', '/openapi.yaml', '/docs', '/docs/swagger-ui.css']) {
      const refused = await serve(guarded, path)
      expect(refused.status, path).to.equal(403)
      expect(await refused.json()).to.deep.equal({ errors: [{ message: 'You are not allowed to read the API description.' }] })
      expect((await serve(guarded, path, { user: { id: 1 } })).status, path).to.equal(200)
    }
  })

  it('trustedHosts: a listed host leads the servers of the document it reads; any other host never appears', async () => {
    const config = await sanitizedWith(undefined, { trustedHosts: ['cms.example.com', 'localhost:3000'] })
    const servers = async (headers: Record<string, string>) =>
      ((await (await serve(config, '/openapi.json', { headers })).json()) as { servers: { url: string }[] }).servers.map((s) => s.url)
    const fallback = (await fixtureSanitized()).serverURL || '/'
    expect(await servers({ host: 'cms.example.com' })).to.deep.equal(['http://cms.example.com', fallback])
    expect(await servers({ host: 'proxy.internal', 'x-forwarded-host': 'cms.example.com', 'x-forwarded-proto': 'https' })).to.deep.equal([
      'https://cms.example.com',
      fallback,
    ])
    expect(await servers({ host: 'localhost:3000' })).to.deep.equal(['http://localhost:3000', fallback])
    expect(await servers({ host: 'evil.example' })).to.deep.equal([fallback])
    expect(await servers({ host: 'localhost:4000' })).to.deep.equal([fallback])
    // Given servers win: the request's host is not added to them.
    const fixed = await sanitizedWith(undefined, { trustedHosts: ['cms.example.com'], servers: [{ url: 'https://api.example.com' }] })
    const body = (await (await serve(fixed, '/openapi.json', { headers: { host: 'cms.example.com' } })).json()) as { servers: { url: string }[] }
    expect(body.servers).to.deep.equal([{ url: 'https://api.example.com' }])
  })

  it('the plugin generates on the first request, then serves the cached text', async () => {
    let reads = 0
    const counted = { path: '/counted', method: 'get' as const, handler: () => Response.json({}), custom: {} as Record<string, unknown> }
    Object.defineProperty(counted.custom, 'openapi', { enumerable: true, get: () => (reads++, { summary: 'Counted' }) })
    const config = await sanitizedWith((c) => ({ ...c, endpoints: [...(c.endpoints ?? []), counted] }))
    const spec = config.endpoints.find((e) => e.path === '/openapi.json')!
    const custom = config.endpoints.find((e) => e.path === '/counted')!.custom!
    const before = reads
    const call = async () => (await spec.handler({ payload: { config } } as never)).text()
    const first = await call()
    expect(reads).to.be.greaterThan(before) // generated now, not when the config was built
    const afterFirst = reads
    expect(await call()).to.equal(first)
    expect(reads).to.equal(afterFirst) // cached: not generated again
    expect(JSON.parse(first).paths['/cms-api/counted'].get.summary).to.equal('Counted')
    expect(custom).to.have.property('openapi')
  })

  it('generation is deterministic: the pure function gives the same document each time', async () => {
    const config = await fixtureSanitized()
    expect(generateOpenAPIDocument(config)).to.deep.equal(generateOpenAPIDocument(config))
  })
})
