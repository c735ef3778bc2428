/**
 * Payload's official plugins from npm (3.90.1) on a live CMS (SQLite, real HTTP): every endpoint they mount is
 * documented without any `custom.openapi`, and each answers as documented (status, content type, JSON Schema)
 * when called with real data, the error paths included. plugin-stripe is not here: its only 3.90 release
 * (3.90.2) wants payload 3.90.2, and the workspace pins 3.90.1 (README, known gaps).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { expect } from 'chai'

import { lintDocument } from './conformance/lintDocument.js'
import { documentedOperations, type DocumentedOperation } from './conformance/requestCases.js'
import { ResponseChecker } from './conformance/responseCheck.js'
import type { Schema } from './conformance/schemaArbitrary.js'
import { buildOfficialPluginsConfig } from './fixture/officialPluginsConfig.js'
import { serveCms, type LiveCms } from './support/liveCms.js'

const PLUGIN_OPERATIONS = [
  'generateSeoTitle',
  'generateSeoDescription',
  'generateSeoURL',
  'generateSeoImage',
  'reindexSearch',
  'getTenantsTenantOptions',
  'downloadExports',
  'previewExports',
  'previewImportsData',
  'addCartsItem',
  'clearCarts',
  'mergeCarts',
  'removeCartsItem',
  'updateCartsItem',
  'initiateManualPayment',
  'confirmManualOrder',
  'postMcp',
  'getMcp',
]

describe("Payload's official plugins: their endpoints documented and answering as documented", function () {
  this.timeout(120_000)
  let cms: LiveCms
  let doc: Schema
  let ops: Map<string, DocumentedOperation>
  let checker: ResponseChecker
  let token = ''

  before(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'openapi-plugins-'))
    cms = await serveCms(await buildOfficialPluginsConfig(dataDir), dataDir, 'official-plugins')
    doc = await (await fetch(`${cms.url}/api/openapi.json`)).json()
    ops = new Map(documentedOperations(doc).map((d) => [d.operationId, d]))
    checker = new ResponseChecker(doc)
    await fetch(`${cms.url}/api/users/first-register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'Admin-pass-1' }),
    })
    const login = await fetch(`${cms.url}/api/users/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'Admin-pass-1' }),
    })
    token = ((await login.json()) as { token: string }).token
  })
  after(async () => {
    await cms?.close()
  })

  /** Calls a documented operation; the answer must be documented (status, content type, body). */
  async function call(
    operationId: string,
    o: { params?: Record<string, unknown>; body?: unknown; headers?: Record<string, string>; anonymous?: boolean } = {},
  ) {
    const d = ops.get(operationId)
    if (!d) throw new Error(`${operationId} is not documented`)
    const url = d.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(o.params?.[name])))
    const headers: Record<string, string> = { ...(o.anonymous ? {} : { Authorization: `JWT ${token}` }), ...o.headers }
    if (o.body !== undefined) headers['Content-Type'] = 'application/json'
    const res = await fetch(`${cms.url}${url}`, { method: d.method.toUpperCase(), headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) })
    const answer = { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) }
    expect(checker.check(d, answer), `${operationId} -> ${answer.status}: ${new TextDecoder().decode(answer.bytes).slice(0, 300)}`).to.deep.equal([])
    const text = new TextDecoder().decode(answer.bytes)
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      body: (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text) as any,
    }
  }

  it('documents every endpoint the plugins mount, tagged and valid, without custom.openapi', () => {
    expect(PLUGIN_OPERATIONS.filter((id) => !ops.has(id))).to.deep.equal([])
    expect(ops.get('reindexSearch')!.path).to.equal('/api/search/reindex')
    expect(ops.get('addCartsItem')!.path).to.equal('/api/carts/{id}/add-item')
    expect(ops.get('initiateManualPayment')!.path).to.equal('/api/payments/manual/initiate')
    // Form builder mounts no endpoint: its collections are documented like any other.
    for (const id of ['findForms', 'createFormSubmissions']) expect(ops.has(id), id).to.equal(true)
    expect(
      (doc.tags as { name: string; description?: string }[]).filter((t) => ['plugin-seo', 'Payments', 'MCP'].includes(t.name) && t.description),
    ).to.have.length(3)
    expect(doc.components.securitySchemes).to.have.property('mcpApiKey')
    for (const result of lintDocument(doc)) expect(result.errors, result.linter).to.deep.equal([])
  })

  it('plugin-seo: the generate endpoints answer {result} as text, 401 without a user, 403 for a document the plugin is not on', async () => {
    const page = await cms.payload.create({
      collection: 'pages',
      data: { title: 'Hello', tenant: (await cms.payload.create({ collection: 'tenants', data: { name: 'T' } })).id },
    })
    const title = await call('generateSeoTitle', { body: { collectionSlug: 'pages', id: page.id, doc: { title: 'Hello' } } })
    expect([title.status, title.type, title.body]).to.deep.equal([200, 'text/plain;charset=UTF-8', { result: 'Title: Hello' }])
    expect((await call('generateSeoImage', { body: { collectionSlug: 'pages', doc: {} } })).body).to.deep.equal({ result: 1 })
    for (const id of ['generateSeoDescription', 'generateSeoURL'])
      expect((await call(id, { body: { collectionSlug: 'pages', doc: page } })).status).to.equal(200)
    expect((await call('generateSeoTitle', { anonymous: true, body: { collectionSlug: 'pages' } })).status).to.equal(401)
    expect((await call('generateSeoTitle', { body: { collectionSlug: 'users' } })).status).to.equal(403)
  })

  it('plugin-search and plugin-multi-tenant: reindex (200, 400) and the tenant options (200, 401)', async () => {
    expect((await call('reindexSearch', { body: { collections: ['pages'] } })).body.message).to.match(/reindexed/i)
    expect((await call('reindexSearch', { body: { collections: ['nope'] } })).status).to.equal(400)
    const options = await call('getTenantsTenantOptions')
    expect(options.status).to.equal(200)
    expect(options.body.tenantOptions.length).to.be.greaterThan(0)
    expect((await call('getTenantsTenantOptions', { anonymous: true })).status).to.equal(401)
  })

  it('plugin-import-export: downloads as CSV and JSON, previews of exports and imports, their 400s', async () => {
    const csv = await call('downloadExports', { body: { data: { collectionSlug: 'pages', format: 'csv' } } })
    expect(csv.type).to.match(/^text\/csv/)
    expect(csv.body).to.match(/^id,/)
    expect((await call('downloadExports', { body: { data: { collectionSlug: 'pages', format: 'json' } } })).body).to.be.an('array')
    expect((await call('downloadExports', { body: {} })).status).to.equal(400)
    expect((await call('previewExports', { body: { collectionSlug: 'pages' } })).body.totalDocs).to.be.greaterThan(0)
    expect((await call('previewExports', { body: { collectionSlug: 'nope' } })).status).to.equal(400)
    expect((await call('previewImportsData', { body: { collectionSlug: 'pages', fileData: 'title\nImported\n', format: 'csv' } })).status).to.equal(200)
    expect((await call('previewImportsData', { body: {} })).status).to.equal(400)
  })

  it('plugin-ecommerce: the cart actions and the payment endpoints, their refusals included', async () => {
    const product = await cms.payload.create({
      collection: 'products',
      data: { inventory: 10, priceInUSD: 100, priceInUSDEnabled: true, _status: 'published' } as never,
    })
    const user = (await cms.payload.find({ collection: 'users', limit: 1 })).docs[0]!
    const cart = await cms.payload.create({ collection: 'carts', data: { customer: user.id, currency: 'USD' } as never })
    const added = await call('addCartsItem', { params: { id: cart.id }, body: { item: { product: product.id }, quantity: 2 } })
    expect(added.body.success).to.equal(true)
    const row = added.body.cart.items[0].id
    expect((await call('updateCartsItem', { params: { id: cart.id }, body: { itemID: row, quantity: { $inc: 1 } } })).body.cart.items[0].quantity).to.equal(3)
    expect((await call('addCartsItem', { params: { id: cart.id }, body: {} })).status).to.equal(400)
    expect((await call('addCartsItem', { params: { id: 999999 }, body: { item: { product: product.id } } })).status).to.equal(404)
    expect((await call('mergeCarts', { params: { id: cart.id }, body: {} })).status).to.equal(400)
    expect((await call('updateCartsItem', { params: { id: cart.id }, body: { itemID: 'none', quantity: 1 } })).status).to.equal(404)
    expect((await call('initiateManualPayment', { body: {} })).status).to.equal(400)
    const initiated = await call('initiateManualPayment', { body: { cartID: cart.id, currency: 'USD', customerEmail: 'admin@example.com' } })
    expect(initiated.status, JSON.stringify(initiated.body)).to.be.oneOf([200, 400])
    expect((await call('confirmManualOrder', { body: { cartID: cart.id } })).status).to.be.oneOf([200, 400, 404, 500])
    expect((await call('removeCartsItem', { params: { id: cart.id }, body: { itemID: row } })).body.success).to.equal(true)
    expect((await call('clearCarts', { params: { id: cart.id } })).body.cart.items).to.deep.equal([])
  })

  it('plugin-mcp: a JSON-RPC request with an MCP API key, 401 without one, 405 on GET', async () => {
    const user = (await cms.payload.find({ collection: 'users', limit: 1 })).docs[0]!
    const key = 'mcp-fixture-key-0123456789abcdef'
    await cms.payload.create({ collection: 'payload-mcp-api-keys', data: { user: user.id, enableAPIKey: true, apiKey: key, label: 'test' } as never })
    const mcp = { Authorization: `Bearer ${key}`, Accept: 'application/json, text/event-stream' }
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    }
    const started = await call('postMcp', { anonymous: true, headers: mcp, body: initialize })
    expect(started.status, JSON.stringify(started.body)).to.equal(200)
    expect(String(started.body)).to.match(/"serverInfo"/)
    expect((await call('postMcp', { anonymous: true, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })).status).to.equal(401)
    const refused = await call('getMcp', { anonymous: true, headers: mcp })
    expect([refused.status, refused.body.error?.message]).to.deep.equal([405, 'Method not allowed.'])
  })
})
