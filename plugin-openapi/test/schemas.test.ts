/**
 * Schemas, parameters, security and custom endpoints of the fixture's description: spec rules 1-6 and each
 * field type, plus feature detection of endpoints Payload 4 mounts.
 */
import { expect } from 'chai'
import type { Endpoint, SanitizedConfig } from 'payload'

import { generateOpenAPIDocument, OpenAPIReferenceError } from '../src/index.js'
import type { OpenAPIV3_1 } from '../src/openapi.js'
import { fixtureDocument, fixtureSanitized, operationKeys, sanitizedWith } from './support/fixtureDocument.js'

type S = Record<string, any>

describe('schemas and operations (fixture)', function () {
  this.timeout(60_000)
  let doc: OpenAPIV3_1.Document
  let schemas: Record<string, S>
  const op = (method: string, path: string): S => (doc.paths[`/cms-api${path}`] as S)?.[method] as S
  const paramNames = (o: S) => (o.parameters ?? []).map((p: S) => (p.$ref ? doc.components.parameters![p.$ref.split('/').pop()]!.name : p.name))

  before(async () => {
    doc = await fixtureDocument()
    schemas = doc.components.schemas as Record<string, S>
  })

  it('rule 1: reads show a relationship or upload as an ID or the populated document', () => {
    expect(schemas.Posts!.properties.category).to.deep.equal({ anyOf: [{ type: 'integer' }, { $ref: '#/components/schemas/Categories' }, { type: 'null' }] })
    expect(JSON.stringify(schemas.Posts!.properties.hero)).to.include('#/components/schemas/Media')
  })

  it('rule 2: bodies take IDs only, at every depth (top level, group, named tab, array, block)', () => {
    const c = schemas.PostsCreate!.properties
    const noRef = (s: unknown) => expect(JSON.stringify(s)).to.not.include('$ref')
    for (const s of [c.category, c.hero, c.seo.properties.image, c.extra.properties.ref, c.links.items.properties.target]) noRef(s)
    noRef(schemas.QuoteBlockCreate!.properties.source)
    expect(schemas.TagsCreate!.properties.id).to.deep.equal({ type: 'string' })
    expect(JSON.stringify(c.category)).to.include('"integer"')
  })

  it('rule 3: polymorphic relationships take {relationTo, value}, arrays of them with hasMany', () => {
    const item = schemas.PostsCreate!.properties.mentions.items
    expect(item.oneOf.map((v: S) => v.properties.relationTo.const)).to.deep.equal(['categories', 'tags'])
    expect(item.oneOf[1].properties.value).to.deep.equal({ type: 'string' })
    expect(item.oneOf[0].required).to.deep.equal(['relationTo', 'value'])
    const pinned = schemas.PostsCreate!.properties.pinned
    expect(JSON.stringify(pinned)).to.include('"relationTo"')
    expect(pinned.type).to.equal(undefined)
  })

  it('rule 4: join, virtual and timestamps are out of bodies; defaults make fields optional', () => {
    expect(schemas.Categories!.properties).to.have.property('posts')
    expect(schemas.CategoriesCreate!.properties).to.not.have.property('posts')
    for (const name of ['computed', 'createdAt', 'updatedAt']) expect(schemas.PostsCreate!.properties).to.not.have.property(name)
    expect(schemas.Posts!.properties).to.have.property('computed')
    expect(schemas.CategoriesCreate!.required).to.include('title')
    // Posts keep drafts: a draft may be saved with required fields empty, so its create body requires none.
    expect(schemas.PostsCreate!.required).to.equal(undefined)
    expect(schemas.PostsCreate!.properties.title.type).to.deep.equal(['string', 'null'])
    expect(schemas.SettingsUpdate!.properties).to.have.property('siteName')
  })

  it('rule 5: fields whose create/update access is a parameterless function returning false are out of that body', () => {
    expect(schemas.Posts!.properties).to.have.property('internalNote')
    expect(schemas.PostsCreate!.properties).to.not.have.property('internalNote')
    expect(schemas.PostsUpdate!.properties).to.not.have.property('internalNote')
    // Payload's own `sessions` field: update: () => false.
    expect(schemas.UsersUpdate!.properties).to.not.have.property('sessions')
  })

  it('rule 6: every field of an update body is optional', () => {
    for (const [name, s] of Object.entries(schemas)) if (name.endsWith('Update') && !name.endsWith('BlockUpdate')) expect(s.required, name).to.equal(undefined)
  })

  it('field types: blocks with a blockType discriminator, select/radio, hasMany, point, json, code, richText, date, email', () => {
    const p = schemas.Posts!.properties
    // The rules a write must follow are in the bodies (reads of posts, whose drafts Payload does not validate, promise types).
    const w = schemas.PostsCreate!.properties
    const content = p.content
    expect(content.items.discriminator.propertyName).to.equal('blockType')
    expect(Object.keys(content.items.discriminator.mapping)).to.deep.equal(['quote', 'gallery'])
    expect(schemas.QuoteBlockCreate!.properties.blockType).to.deep.equal({ type: 'string', const: 'quote' })
    expect(schemas.QuoteBlockDraft!.properties.blockType).to.deep.equal({ type: 'string', const: 'quote' })
    expect(w.status.enum).to.deep.equal(['low', 'high', null])
    expect(w.flavours.items.enum).to.deep.equal(['sweet', 'sour'])
    expect(w.layout.enum).to.deep.equal(['wide', 'narrow', null])
    expect(p.scores.items).to.deep.equal({ type: 'number' })
    expect(p.keywords.items).to.deep.equal({ type: 'string' })
    expect(w.location.minItems).to.equal(2)
    expect(p.meta).to.deep.equal({})
    expect(p.snippet.type).to.deep.equal(['string', 'null'])
    expect(p.publishedOn.format).to.equal('date-time')
    expect(w.contact.format).to.equal('email')
    expect(p.rowA.type).to.deep.equal(['string', 'null'])
    expect(p.collapsed).to.be.an('object')
    expect(p.tabText).to.be.an('object')
    expect(p.extra.properties).to.have.keys(['note', 'ref'])
    expect(p).to.not.have.property('secretField')
  })

  it('localized fields also take the locale=all shape on reads; drafts add _status, trash adds deletedAt', () => {
    const title = schemas.Posts!.properties.title
    expect(title.anyOf[1].propertyNames).to.deep.equal({ enum: ['en', 'de'] })
    expect(schemas.PostsCreate!.properties._status.enum).to.include.members(['draft', 'published'])
    expect(schemas.Posts!.properties.deletedAt.format).to.equal('date-time')
  })

  it('reads of an entity whose drafts Payload does not validate promise types only; with drafts.validate, the rules as well', async () => {
    // A draft stores `views: -1`, `status: "zzz"`, a 300-character title, `location: [1, null]` (seen on SQLite).
    const p = schemas.Posts!.properties
    expect(p.views).to.deep.equal({ type: ['number', 'null'] })
    expect(p.status)
      .to.deep.include({ type: ['string', 'null'] })
      .and.not.have.property('enum')
    expect(p.status.description).to.match(/`low`, `high`.*Payload does not validate drafts/)
    expect(p.title.anyOf[0]).to.deep.equal({ type: 'string' })
    expect(p.location.items).to.deep.equal({ type: ['number', 'null'] })
    expect(p.contact).to.not.have.property('format')
    expect(JSON.stringify(p.content)).to.include('QuoteBlockDraft').and.not.include('"#/components/schemas/QuoteBlock"')
    // Its write bodies keep every rule; a collection without drafts reads with them too.
    expect(schemas.PostsUpdate!.properties.views.minimum).to.equal(0)
    expect(schemas.PostsCreate!.properties.title.maxLength).to.equal(200)
    expect(schemas.Users!.properties.roles.items.enum).to.deep.equal(['admin', 'editor'])
    // A global with drafts reads the same way (settings.siteName is required: nullable there).
    expect(schemas.Settings!.properties.siteName.anyOf.at(-1)).to.deep.equal({ type: 'null' })
    const validated = generateOpenAPIDocument(
      await sanitizedWith((c) => ({
        ...c,
        collections: c.collections!.map((x) => (x.slug === 'posts' ? { ...x, versions: { drafts: { autosave: true, validate: true } } } : x)),
      })),
    )
    const v = (validated.components.schemas as Record<string, S>).Posts!.properties
    expect(v.views.minimum).to.equal(0)
    expect(v.status.enum).to.deep.equal(['low', 'high', null])
    expect(v.location.minItems).to.equal(2)
    expect(JSON.stringify(v.content)).to.include('"#/components/schemas/QuoteBlock"')
  })

  it('ID types: number for SQL adapters, custom id fields as declared, string for MongoDB', async () => {
    expect(schemas.Posts!.properties.id).to.deep.equal({ type: 'integer' })
    expect(schemas.Tags!.properties.id).to.deep.equal({ type: 'string' })
    const config = await fixtureSanitized()
    const mongo = generateOpenAPIDocument({ ...config, db: { ...config.db, defaultIDType: 'text' } } as SanitizedConfig)
    expect((mongo.components.schemas.Posts as S).properties.id).to.deep.equal({ type: 'string' })
  })

  it('upload and auth documents as the API returns them', () => {
    expect(schemas.Media!.properties).to.include.keys(['url', 'thumbnailURL', 'filename', 'mimeType', 'filesize', 'width', 'height', 'sizes'])
    expect(schemas.Media!.properties.sizes.properties.thumbnail.properties).to.include.keys(['url', 'width', 'height', 'filename'])
    expect(schemas.Users!.properties).to.include.keys(['email', 'enableAPIKey'])
    expect(schemas.Users!.properties).to.not.have.property('apiKey') // read access: () => false (revealed by its own endpoint)
    expect(schemas.UsersUpdate!.properties).to.include.keys(['apiKey', 'enableAPIKey'])
    for (const secret of ['salt', 'hash', 'resetPasswordToken', 'loginAttempts', 'lockUntil']) expect(schemas.Users!.properties).to.not.have.property(secret)
    expect(schemas.UsersCreate!.required).to.include.members(['email', 'password'])
    expect(schemas.Editors!.properties).to.have.property('username')
  })

  it('uploads take multipart/form-data with file + _payload on create and update', () => {
    for (const o of [op('post', '/media'), op('patch', '/media/{id}')]) {
      const mp = o.requestBody.content['multipart/form-data']
      expect(mp.schema.properties).to.have.keys(['file', '_payload'])
      expect(mp.encoding._payload.contentType).to.equal('application/json')
    }
    expect(op('post', '/posts').requestBody.content).to.have.keys(['application/json'])
    // A create without a file answers 400 unless files are optional: no JSON body for media create.
    expect(op('post', '/media').requestBody.content).to.have.keys(['multipart/form-data'])
    expect(op('patch', '/media/{id}').requestBody.content).to.have.keys(['application/json', 'multipart/form-data'])
  })

  it('login, forgot-password and unlock take email, username, or either; logout answers 403 to a user of another auth collection', async () => {
    expect(Object.keys(op('post', '/editors/logout').responses)).to.deep.equal(['200', '400', '403'])
    const single = generateOpenAPIDocument(
      await sanitizedWith((c) => ({ ...c, collections: c.collections!.filter((x) => x.slug !== 'editors' && x.slug !== 'members') })),
    )
    expect(Object.keys((single.paths['/cms-api/users/logout'] as S).post.responses)).to.deep.equal(['200', '400'])
    const users = op('post', '/users/login').requestBody.content['application/json'].schema
    expect(users.required).to.deep.equal(['email', 'password'])
    const editors = op('post', '/editors/login').requestBody.content['application/json'].schema
    expect(editors.anyOf).to.deep.equal([{ required: ['email'] }, { required: ['username'] }])
    expect(op('post', '/editors/unlock').requestBody.content['application/json'].schema.properties).to.have.keys(['email', 'username'])
  })

  it('write query parameters appear exactly where the spec lists them', () => {
    expect(paramNames(op('post', '/posts'))).to.include.members(['autosave', 'depth', 'locale', 'fallback-locale', 'select', 'populate', 'draft', 'trash'])
    expect(paramNames(op('patch', '/posts/{id}'))).to.include.members(['autosave', 'overrideLock'])
    expect(paramNames(op('patch', '/posts')))
      .to.include.members(['where', 'limit', 'sort', 'overrideLock'])
      .and.not.include('autosave')
    expect(paramNames(op('delete', '/posts')))
      .to.include.members(['where', 'overrideLock'])
      .and.not.include.members(['limit', 'sort'])
    expect(paramNames(op('post', '/posts/{id}/duplicate'))).to.include('selectedLocales[]')
    expect(paramNames(op('post', '/categories'))).to.not.include.members(['autosave', 'draft', 'trash'])
    expect(paramNames(op('post', '/globals/settings'))).to.not.include('autosave')
    for (const o of [op('post', '/posts'), op('patch', '/posts/{id}')])
      expect(paramNames(o)).to.not.include.members(['publishAllLocales', 'unpublishAllLocales'])
    expect(paramNames(op('get', '/posts'))).to.include.members(['where', 'limit', 'page', 'sort', 'depth', 'locale', 'select', 'populate', 'draft', 'trash'])
    // `joins` only where a join field is (categories list their posts).
    expect(paramNames(op('get', '/posts'))).to.not.include('joins')
    expect(paramNames(op('get', '/categories'))).to.include('joins')
  })

  it('security schemes: JWT bearer, the payload-token cookie, an API key per auth collection with useAPIKey', () => {
    const schemes = doc.components.securitySchemes as S
    expect(schemes.bearerAuth.scheme).to.equal('bearer')
    expect(schemes.cookieAuth).to.include({ in: 'cookie', name: 'payload-token' })
    expect(schemes.UsersApiKey).to.include({ in: 'header', name: 'Authorization' })
    expect(schemes).to.not.have.property('EditorsApiKey')
    expect(op('post', '/users/login').security).to.deep.equal([])
    expect(op('get', '/posts').security).to.deep.include({ UsersApiKey: [] })
    expect(op('get', '/payload-jobs/run').security).to.not.deep.include({})
  })

  it('response shapes: create 201 {doc,message}, bulk {docs,errors,message}, global update {message,result}, count, errors', () => {
    const json = (o: S, status: number) => o.responses[status].content['application/json'].schema
    expect(json(op('post', '/posts'), 201).required).to.deep.equal(['doc', 'message'])
    expect(json(op('patch', '/posts'), 200).required).to.deep.equal(['docs', 'errors', 'message'])
    expect(json(op('post', '/globals/settings'), 200).required).to.deep.equal(['message', 'result'])
    expect(json(op('get', '/posts/count'), 200).required).to.deep.equal(['totalDocs'])
    expect(json(op('get', '/posts'), 200)).to.deep.equal({ $ref: '#/components/schemas/PostsList' })
    expect(op('get', '/posts/{id}').responses[404]).to.deep.equal({ $ref: '#/components/responses/NotFound' })
  })

  it('where, select, populate and joins: per collection, as Payload parses them', async () => {
    const config = await fixtureSanitized()
    const where = schemas.PostsWhere!
    expect(where.additionalProperties).to.equal(false)
    expect(where.properties.and.items).to.deep.equal({ $ref: '#/components/schemas/PostsWhere' })
    expect(Object.keys(where.properties.title.properties)).to.include.members(['equals', 'like', 'in', 'exists']).and.not.include('near')
    expect(where.properties.title.properties.in).to.include({ type: 'array' })
    // As the SQLite adapter answers: no `all`, no point operators; a block's type by its slug, equality only;
    // a polymorphic relationship by `.value` and `.relationTo`.
    expect(Object.keys(where.properties.flavours.properties)).to.not.include('all')
    expect(Object.keys(where.properties.location.properties)).to.deep.equal(['exists'])
    expect(where.properties['content.blockType'].properties.equals).to.deep.equal({ type: 'string', enum: ['quote', 'gallery'] })
    expect(Object.keys(where.properties['content.blockType'].properties)).to.deep.equal(['equals', 'not_equals', 'in', 'not_in'])
    expect(where.properties).to.not.have.property('pinned')
    expect(Object.keys(where.properties['pinned.relationTo'].properties)).to.deep.equal(['equals', 'not_equals'])
    expect(where.properties['pinned.relationTo'].properties.equals.enum).to.deep.equal(['categories', 'media'])
    expect(where.properties['mentions.value'].properties.in.items).to.deep.equal({ type: ['integer', 'string'] })
    // MongoDB (and an adapter the plugin does not know) queries every operator Payload documents.
    const mongo = generateOpenAPIDocument({ ...config, db: { ...config.db, name: 'mongoose' } } as SanitizedConfig)
    const mongoWhere = (mongo.components.schemas as Record<string, S>).PostsWhere!.properties
    expect(Object.keys(mongoWhere.flavours.properties)).to.include('all')
    expect(Object.keys(mongoWhere.location.properties)).to.include('near')
    expect(Object.keys(mongoWhere['content.blockType'].properties)).to.include.members(['exists', 'like'])
    // Through a relationship any path of the related collection (`category.title`).
    expect(Object.keys(where.patternProperties)).to.include('^category\\.[A-Za-z0-9_.]+$')
    expect(schemas.PostsVersionWhere!.properties).to.include.keys('parent', 'latest', 'version.title')
    expect(schemas.PostsSelect!.properties).to.not.have.property('id')
    expect(schemas.Populate!.properties).to.include.keys('media', 'categories', 'posts', 'tags')
    expect(Object.keys(schemas.CategoriesJoins!.properties)).to.deep.equal(['posts'])
    const bulk = op('patch', '/posts').parameters.find((p: S) => p.name === 'where')
    expect([bulk.required, bulk.style, bulk.schema]).to.deep.equal([true, 'deepObject', { $ref: '#/components/schemas/PostsWhere' }])
    expect(op('get', '/posts').parameters.find((p: S) => p.name === 'where').required).to.equal(undefined)
  })

  it("reads require only id (select leaves out any field); Payload's sessions are out of create bodies; summaries use labels", () => {
    expect(schemas.Categories!.required).to.deep.equal(['id'])
    expect(schemas.Categories!.properties.title.anyOf[0].type).to.equal('string')
    expect(schemas.UsersCreate!.properties).to.not.have.property('sessions')
    expect(op('post', '/users/login').summary).to.equal('Log in as a User')
    expect(op('get', '/media').summary).to.equal('List Media')
  })

  it("a collection's custom.openapi.responses adds responses to its generated operations", async () => {
    const config = await sanitizedWith((c) => ({
      ...c,
      collections: c.collections!.map((x) =>
        x.slug === 'categories'
          ? { ...x, custom: { openapi: { responses: { 'POST /': { 415: { description: 'Refused' } }, '*': { 429: { description: 'Slow down' } } } } } }
          : x,
      ),
    }))
    const d = generateOpenAPIDocument(config) as S
    expect(d.paths['/cms-api/categories'].post.responses['415']).to.deep.equal({
      description: 'Refused',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    })
    expect(d.paths['/cms-api/categories'].get.responses).to.have.property('429').and.not.have.property('415')
    expect(d.paths['/cms-api/posts'].post.responses).to.not.have.property('415')
  })

  it('custom endpoints: with custom.openapi merged over a default, without it left out; bad $refs are refused', async () => {
    const keys = operationKeys(doc)
    expect(keys).to.include.members(['GET /cms-api/health', 'GET /cms-api/posts/{id}/summary'])
    expect(keys).to.not.include.members(['GET /cms-api/internal-stats', 'GET /cms-api/posts/undocumented'])
    const summary = op('get', '/posts/{id}/summary')
    expect(summary.tags).to.deep.equal(['posts'])
    expect(summary.summary).to.equal('Short summary of a post')
    expect(schemas.Health).to.be.an('object')
    const config = await fixtureSanitized()
    const broken: Endpoint = {
      path: '/broken',
      method: 'get',
      handler: () => Response.json({}),
      custom: { openapi: { responses: { 200: { description: 'x', content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } } } } } },
    }
    expect(() => generateOpenAPIDocument({ ...config, endpoints: [...config.endpoints, broken] } as SanitizedConfig)).to.throw(OpenAPIReferenceError, /Nope/)
    // A clash with a generated schema, also when the custom endpoint comes before the collection's own operations.
    const clash: Endpoint = {
      path: '/clash',
      method: 'get',
      handler: () => Response.json({}),
      custom: { openapi: { components: { schemas: { Posts: { type: 'string' } } } } },
    }
    expect(() => generateOpenAPIDocument({ ...config, endpoints: [...config.endpoints, clash] } as SanitizedConfig)).to.throw(
      OpenAPIReferenceError,
      /"Posts" is already defined/,
    )
    const early = {
      ...config,
      collections: config.collections.map((c) => (c.slug === 'posts' ? { ...c, endpoints: [clash, ...(c.endpoints || [])] } : c)),
    } as SanitizedConfig
    expect(() => generateOpenAPIDocument(early)).to.throw(OpenAPIReferenceError, /"Posts" is already defined/)
  })

  it("custom endpoints of a collection: {id} is typed like the collection's other ids; no security given means access decides", async () => {
    const config = await fixtureSanitized()
    // As the storage plugin's playback endpoint: a collection endpoint on `/:id/...` that declares neither.
    const playback: Endpoint = {
      path: '/:id/playback',
      method: 'get',
      handler: () => Response.json({}),
      custom: { openapi: { summary: 'Player URLs', responses: { 200: { description: 'URLs.' } } } },
    }
    const withPlayback = (c: SanitizedConfig) =>
      ({
        ...c,
        collections: c.collections.map((col) => (col.slug === 'posts' ? { ...col, endpoints: [...(col.endpoints || []), playback] } : col)),
      }) as SanitizedConfig
    const generated = generateOpenAPIDocument(withPlayback(config))
    const operation = (generated.paths['/cms-api/posts/{id}/playback'] as S).get as S
    const read = (generated.paths['/cms-api/posts/{id}'] as S).get as S
    const idOf = (o: S): S => (o.parameters as S[]).find((p) => p.name === 'id' && p.in === 'path') ?? {}
    expect(idOf(operation).schema).to.deep.equal({ type: 'integer' })
    expect(idOf(operation).schema).to.deep.equal(idOf(read).schema)
    // Like reading the document: any credential or none (the collection's read access decides).
    expect(operation.security).to.deep.equal(read.security)
    expect(operation.security).to.deep.include({})
    const mongo = generateOpenAPIDocument(withPlayback({ ...config, db: { ...config.db, defaultIDType: 'text' } } as SanitizedConfig))
    expect(idOf((mongo.paths['/cms-api/posts/{id}/playback'] as S).get as S).schema).to.deep.equal({ type: 'string' })
    // A root endpoint's path parameter stays a string.
    const root: Endpoint = { path: '/things/:id', method: 'get', handler: () => Response.json({}), custom: { openapi: { summary: 'x' } } }
    const rooted = generateOpenAPIDocument({ ...config, endpoints: [...config.endpoints, root] } as SanitizedConfig)
    expect(idOf((rooted.paths['/cms-api/things/{id}'] as S).get as S).schema).to.deep.equal({ type: 'string' })
  })

  it('catalog conditions read from the sanitized config: disableLocalStrategy, disableBulkEdit, disableDuplicate', async () => {
    const config = await fixtureSanitized()
    const changed = {
      ...config,
      collections: config.collections.map((c) =>
        c.slug === 'editors'
          ? { ...c, auth: { ...c.auth, disableLocalStrategy: true } }
          : c.slug === 'categories'
            ? { ...c, disableBulkEdit: true }
            : c.slug === 'tags'
              ? { ...c, endpoints: (c.endpoints || []).filter((e) => e.path !== '/:id/duplicate') }
              : c,
      ),
    } as SanitizedConfig
    const keys = operationKeys(generateOpenAPIDocument(changed))
    for (const gone of ['login', 'forgot-password', 'reset-password', 'unlock', 'first-register']) expect(keys).to.not.include(`POST /cms-api/editors/${gone}`)
    expect(keys).to.include.members(['GET /cms-api/editors/me', 'POST /cms-api/editors/logout', 'GET /cms-api/editors/init'])
    expect(keys).to.not.include.members(['PATCH /cms-api/categories', 'DELETE /cms-api/categories'])
    expect(keys).to.include('PATCH /cms-api/categories/{id}')
    expect(keys).to.not.include('POST /cms-api/tags/{id}/duplicate')
    expect(operationKeys(doc)).to.include.members(['POST /cms-api/editors/login', 'PATCH /cms-api/categories', 'POST /cms-api/tags/{id}/duplicate'])
  })

  it('feature detection: endpoints Payload 4 mounts (validate, upload-instructions) are documented where mounted; removed ones vanish', async () => {
    const config = await fixtureSanitized()
    const h = () => Response.json({})
    const posts = config.collections.find((c) => c.slug === 'posts')!
    const users = config.collections.find((c) => c.slug === 'users')!
    const settings = config.globals.find((g) => g.slug === 'settings')!
    const v4 = {
      ...config,
      endpoints: [
        ...config.endpoints,
        { path: '/upload-instructions', method: 'post', handler: h },
        { path: '/upload-instructions/:uploadId', method: 'put', handler: h },
        { path: '/upload-instructions/:uploadId', method: 'delete', handler: h },
      ],
      collections: config.collections.map((c) =>
        c === posts
          ? {
              ...c,
              endpoints: [...(c.endpoints || []), { path: '/validate', method: 'post', handler: h }, { path: '/:id/validate', method: 'post', handler: h }],
            }
          : c === users
            ? { ...c, endpoints: (c.endpoints || []).filter((e) => e.path !== '/:id/api-key/reveal') }
            : c,
      ),
      globals: config.globals.map((g) =>
        g === settings ? { ...g, endpoints: [...(g.endpoints || []), { path: '/validate', method: 'post', handler: h }] } : g,
      ),
    } as SanitizedConfig
    const before = operationKeys(doc)
    expect(before.filter((k) => /validate|upload-instructions/.test(k))).to.deep.equal([])
    const after = operationKeys(generateOpenAPIDocument(v4))
    expect(after).to.include.members([
      'POST /cms-api/posts/validate',
      'POST /cms-api/posts/{id}/validate',
      'POST /cms-api/globals/settings/validate',
      'POST /cms-api/upload-instructions',
      'PUT /cms-api/upload-instructions/{uploadId}',
      'DELETE /cms-api/upload-instructions/{uploadId}',
    ])
    expect(after).to.not.include('POST /cms-api/users/{id}/api-key/reveal')
    // A folder/tag collection (CMS 4 `hierarchy`): path fields read-only, computed on request.
    const hier = generateOpenAPIDocument({
      ...config,
      collections: config.collections.map((c) =>
        c.slug === 'categories'
          ? { ...c, hierarchy: { slugPathFieldName: 'path' }, fields: [...c.fields, { name: 'path', type: 'text' }, { name: '_h_titlePath', type: 'text' }] }
          : c,
      ),
    } as SanitizedConfig)
    expect((hier.components.schemas.Categories as S).properties).to.include.keys(['path', '_h_titlePath'])
    expect((hier.components.schemas.CategoriesCreate as S).properties).to.not.have.any.keys(['path', '_h_titlePath'])
    expect(JSON.stringify(hier.paths['/cms-api/categories']!.get)).to.include('computeHierarchyPaths')
    expect(JSON.stringify(doc.paths['/cms-api/categories']!.get)).to.not.include('computeHierarchyPaths')
    const validate = generateOpenAPIDocument(v4).paths['/cms-api/posts/validate']!.post!
    expect((validate.requestBody as S).content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/PostsCreate' })
  })
})
