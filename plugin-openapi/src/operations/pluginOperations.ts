/**
 * @module plugin-openapi/operations/pluginOperations
 * Builders of the endpoints Payload's official plugins mount (3.90, read from their sources and checked against
 * their answers): SEO's generate endpoints, search's reindex, multi-tenant's tenant options, import-export's
 * download and previews, ecommerce's cart and payment endpoints, and MCP's endpoint. Form builder mounts none
 * (its `forms` and `form-submissions` are ordinary collections). No `custom.openapi` needed on them.
 */
import type { OpenAPIV3_1 } from '../openapi.js'
import { nullable, objectSchema, ref, type Schema } from '../schemas/jsonSchema.js'
import { operation, pathParam, type BuildContext, type BuiltOperations, type Scope } from './context.js'
import { errors, json, message } from './responses.js'

type CollectionScope = Extract<Scope, { kind: 'collection' }>

const anyObject: Schema = { type: 'object', additionalProperties: true }
const jsonBody = (schema: Schema, required = true): OpenAPIV3_1.RequestBodyObject => ({ required, content: { 'application/json': { schema } } })

/** JSON text that a handler returns without a Content-Type (a `new Response(string)` is sent as text/plain). */
const jsonAsText = (description: string, schema: Schema): OpenAPIV3_1.ResponseObject => ({
  description: `${description} JSON text, sent as \`text/plain\` (the plugin sets no JSON content type).`,
  content: { 'text/plain': { schema: { type: 'string', contentMediaType: 'application/json', contentSchema: schema } } },
})

const seoBody = objectSchema(
  {
    collectionSlug: { type: 'string', description: 'The collection of the document (one the plugin is on).' },
    globalSlug: { type: 'string', description: 'Or the global (one the plugin is on).' },
    id: { type: ['integer', 'string'], description: 'The ID of the document; must be one the user may read.' },
    doc: { ...anyObject, description: "The document's current data, as the admin form holds it." },
    locale: { type: 'string' },
  },
  [],
  { additionalProperties: true, description: 'What the generate function receives (the admin sends the whole form state).' },
)

const seoKinds = { description: 'Description', image: 'Image', title: 'Title', url: 'URL' } as const

const cartResult = (b: BuildContext, s: CollectionScope) =>
  objectSchema({ cart: nullable(b.registry.collectionSchema(s.slug, 'read')), message: { type: 'string' }, success: { type: 'boolean' } }, [
    'message',
    'success',
  ])
const cartRefusal = objectSchema({ message: { type: 'string' }, success: { const: false }, cart: {} }, ['message', 'success'])
const cartNotFound = { anyOf: [cartRefusal, ref('Error')] }
const secret = { type: 'string', description: 'The secret of a guest cart.' }

/** plugin-ecommerce's payment errors: `{message}`, where an inventory error serialises as `{message: {}, cause}`. */
const paymentProblem = objectSchema({ message: {}, cause: objectSchema({ code: { type: 'string' } }, [], { additionalProperties: true }) }, ['message'])

export const pluginOperations = {
  /** plugin-seo: `POST /plugin-seo/generate-{title,description,url,image}`. */
  seoGenerate(kind: keyof typeof seoKinds) {
    return (b: BuildContext): BuiltOperations => ({
      [`/plugin-seo/generate-${kind}`]: operation({
        id: `generateSeo${seoKinds[kind]}`,
        summary: `Generate the SEO ${kind === 'url' ? 'URL' : kind} of a document (plugin-seo)`,
        tag: 'plugin-seo',
        requestBody: jsonBody(seoBody, false),
        responses: {
          200: jsonAsText(
            `The generated ${kind}: \`{result}\`.`,
            objectSchema({ result: kind === 'image' ? { type: ['integer', 'string', 'object', 'null'] } : { type: ['string', 'null'] } }, ['result']),
          ),
          ...errors(401, 403),
        },
        security: b.security.required,
      }),
    })
  },
  /** plugin-search: `POST /<search>/reindex`. */
  reindex(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/reindex': operation({
        id: `reindex${s.name}`,
        summary: 'Rebuild the search index of collections (plugin-search)',
        tag: s.tag,
        requestBody: jsonBody(
          objectSchema({ collections: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Collections the plugin indexes.' } }, [
            'collections',
          ]),
        ),
        responses: {
          200: json('Reindexed.', message()),
          400: json('A collection the plugin does not index.', message()),
          401: json('The user may not update and delete search results.', message()),
        },
        security: b.security.optional,
      }),
    }
  },
  /** plugin-multi-tenant: `GET /<tenants>/populate-tenant-options`. */
  tenantOptions(b: BuildContext, s: CollectionScope): BuiltOperations {
    const option = objectSchema({ label: { type: 'string' }, value: { type: ['integer', 'string'] } }, ['label', 'value'])
    return {
      '/populate-tenant-options': operation({
        id: `get${s.name}TenantOptions`,
        summary: "The tenants the signed-in user may choose (plugin-multi-tenant's tenant selector)",
        tag: s.tag,
        responses: {
          200: jsonAsText('`{tenantOptions}`.', objectSchema({ tenantOptions: { type: 'array', items: option } }, ['tenantOptions'])),
          ...errors(401),
        },
        security: b.security.required,
      }),
    }
  },
  /** plugin-import-export: `POST /<exports>/download`. */
  exportDownload(b: BuildContext, s: CollectionScope): BuiltOperations {
    const data = objectSchema(
      {
        collectionSlug: { type: 'string' },
        format: { type: 'string', enum: ['csv', 'json'] },
        fields: { type: 'array', items: { type: 'string' } },
        where: anyObject,
        sort: { type: 'string' },
        limit: { type: 'integer', minimum: 0 },
        page: { type: 'integer', minimum: 1 },
        locale: { type: 'string' },
        drafts: { type: 'string', enum: ['yes', 'no'] },
        name: { type: 'string' },
      },
      ['collectionSlug'],
      { additionalProperties: true },
    )
    return {
      '/download': operation({
        id: `download${s.name}`,
        summary: 'Export documents of a collection as a file download (plugin-import-export)',
        tag: s.tag,
        requestBody: jsonBody(objectSchema({ data }, ['data'])),
        responses: {
          200: {
            description: 'The export: CSV, or a JSON array of the documents.',
            content: { 'text/csv': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'array', items: anyObject } } },
          },
          ...errors(400),
        },
        security: b.security.optional,
      }),
    }
  },
  /** plugin-import-export: `POST /<exports>/export-preview`. */
  exportPreview(b: BuildContext, s: CollectionScope): BuiltOperations {
    const body = objectSchema(
      {
        collectionSlug: { type: 'string' },
        fields: { type: 'array', items: { type: 'string' } },
        where: anyObject,
        sort: { type: 'string' },
        limit: { type: 'integer', minimum: 0 },
        locale: { type: 'string' },
        draft: { type: 'string', enum: ['yes', 'no'] },
        format: { type: 'string', enum: ['csv', 'json'] },
        previewLimit: { type: 'integer', minimum: 1 },
        previewPage: { type: 'integer', minimum: 1 },
      },
      ['collectionSlug'],
      { additionalProperties: true },
    )
    const int = { type: 'integer' }
    const page = objectSchema(
      {
        columns: { type: 'array', items: { type: 'string' } },
        docs: { type: 'array', items: anyObject },
        exportTotalDocs: int,
        hasNextPage: { type: 'boolean' },
        hasPrevPage: { type: 'boolean' },
        limit: int,
        maxLimit: nullable(int),
        page: int,
        totalDocs: int,
        totalPages: int,
      },
      ['docs', 'totalDocs'],
    )
    return {
      '/export-preview': operation({
        id: `preview${s.name}`,
        summary: 'Preview the rows an export would have (plugin-import-export)',
        tag: s.tag,
        requestBody: jsonBody(body),
        responses: { 200: json('A page of the export.', page), 400: json('Unknown collection.', objectSchema({ error: { type: 'string' } }, ['error'])) },
        security: b.security.optional,
      }),
    }
  },
  /** plugin-import-export: `POST /<imports>/preview-data`. */
  importPreview(b: BuildContext, s: CollectionScope): BuiltOperations {
    const body = objectSchema(
      {
        collectionSlug: { type: 'string' },
        fileData: { type: 'string', description: 'The file to import: CSV text, or JSON text of an array of documents.' },
        format: { type: 'string', enum: ['csv', 'json'] },
        previewLimit: { type: 'integer', minimum: 1 },
        previewPage: { type: 'integer', minimum: 1 },
      },
      ['collectionSlug'],
      { additionalProperties: true },
    )
    const int = { type: 'integer' }
    const page = objectSchema(
      {
        docs: { type: 'array', items: anyObject },
        hasNextPage: { type: 'boolean' },
        hasPrevPage: { type: 'boolean' },
        limit: int,
        limitExceeded: { type: 'boolean' },
        page: int,
        totalDocs: int,
        totalPages: int,
      },
      ['docs', 'totalDocs'],
    )
    const problem = objectSchema({ error: { type: 'string' } }, ['error'])
    return {
      '/preview-data': operation({
        id: `preview${s.name}Data`,
        summary: 'Preview the documents an import file holds (plugin-import-export)',
        tag: s.tag,
        requestBody: jsonBody(body),
        responses: {
          200: json('A page of the documents in the file.', page),
          400: json('Unknown collection or bad file.', problem),
          500: json('The file could not be read.', problem),
        },
        security: b.security.optional,
      }),
    }
  },
  /** plugin-ecommerce: `POST /<carts>/{id}/<action>`. */
  cart(action: 'add-item' | 'clear' | 'merge' | 'remove-item' | 'update-item') {
    const bodies: Record<typeof action, Schema> = {
      'add-item': objectSchema(
        {
          item: objectSchema({ product: { type: ['integer', 'string'] }, variant: { type: ['integer', 'string'] } }, ['product'], {
            additionalProperties: true,
          }),
          quantity: { type: 'integer', minimum: 1, default: 1 },
          secret,
        },
        ['item'],
      ),
      clear: objectSchema({ secret }, []),
      merge: objectSchema({ sourceCartID: { type: ['integer', 'string'] }, sourceSecret: { type: 'string' } }, ['sourceCartID', 'sourceSecret']),
      'remove-item': objectSchema({ itemID: { type: 'string', description: 'The cart row ID.' }, secret }, ['itemID']),
      'update-item': objectSchema(
        {
          itemID: { type: 'string', description: 'The cart row ID.' },
          quantity: {
            anyOf: [{ type: 'integer' }, objectSchema({ $inc: { type: 'integer' } }, ['$inc'])],
            description: 'A quantity, or `{$inc: n}` to change it by n.',
          },
          removeOnZero: { type: 'boolean', default: true },
          secret,
        },
        ['itemID', 'quantity'],
      ),
    }
    const words: Record<typeof action, [string, string]> = {
      'add-item': ['add', 'Item'],
      clear: ['clear', ''],
      merge: ['merge', ''],
      'remove-item': ['remove', 'Item'],
      'update-item': ['update', 'Item'],
    }
    return (b: BuildContext, s: CollectionScope): BuiltOperations => ({
      [`/{id}/${action}`]: operation({
        id: `${words[action][0]}${s.name}${words[action][1]}`,
        summary: `${action === 'merge' ? 'Merge a guest cart into this cart' : `${action.replace('-', ' ').replace(/^./, (c) => c.toUpperCase())} (cart)`} (plugin-ecommerce)`,
        tag: s.tag,
        parameters: [pathParam('id', b.registry.idSchema(s.slug), 'ID of the cart.')],
        requestBody: jsonBody(bodies[action], action !== 'clear'),
        responses: {
          200: json('The cart after the change.', cartResult(b, s)),
          400: json('A value is missing or wrong.', cartRefusal),
          ...(action === 'merge' ? { 401: json('Merging needs a signed-in user who owns the cart.', cartRefusal) } : {}),
          404: json('No such cart, item or source cart.', cartNotFound),
        },
        security: b.security.optional,
      }),
    })
  },
  /** plugin-ecommerce: `POST /payments/<method>/{initiate,confirm-order}`. */
  payment(method: string, step: 'confirm-order' | 'initiate') {
    const name = method.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_m, _s, c: string) => c.toUpperCase())
    const body = objectSchema(
      {
        cartID: { type: ['integer', 'string'] },
        currency: { type: 'string' },
        customerEmail: { type: 'string', format: 'email' },
        billingAddress: anyObject,
        shippingAddress: anyObject,
      },
      [],
      { additionalProperties: true, description: "What the payment method reads; the payment provider's fields besides." },
    )
    return (b: BuildContext): BuiltOperations => ({
      [`/payments/${method}/${step}`]: operation({
        id: step === 'initiate' ? `initiate${name}Payment` : `confirm${name}Order`,
        summary: step === 'initiate' ? `Start a payment with ${method} (plugin-ecommerce)` : `Confirm the order paid with ${method} (plugin-ecommerce)`,
        tag: 'Payments',
        requestBody: jsonBody(body),
        responses: {
          200: json("The payment method's answer.", anyObject),
          400: json('A value is missing or wrong, or a product is out of stock (then `message` is an empty object and `cause` says why).', paymentProblem),
          404: json('No such cart, product or transaction.', paymentProblem),
          500: json('The payment provider failed.', paymentProblem),
        },
        security: b.security.optional,
      }),
    })
  },
  /** plugin-mcp: `POST /mcp` and `GET /mcp`. */
  mcp(verb: 'get' | 'post') {
    return (b: BuildContext): BuiltOperations => {
      b.security.schemes.mcpApiKey = {
        type: 'http',
        scheme: 'bearer',
        description: 'An MCP API key (a `payload-mcp-api-keys` document), as `Authorization: Bearer <key>`.',
      }
      const rpc = objectSchema(
        {
          jsonrpc: { const: '2.0' },
          id: { type: ['integer', 'string', 'null'] },
          result: {},
          error: objectSchema({ code: { type: 'integer' }, message: { type: 'string' } }, ['code', 'message']),
        },
        ['jsonrpc'],
      )
      const security = [{ mcpApiKey: [] }]
      if (verb === 'get') {
        return {
          '/mcp': operation({
            id: 'getMcp',
            summary: 'MCP over GET: not supported, answers a JSON-RPC error (plugin-mcp)',
            tag: 'MCP',
            // The JSON-RPC error comes without a Content-Type: no media type can be promised.
            responses: { 405: { description: 'Method not allowed: a JSON-RPC error (`{jsonrpc, error, id}`) sent without a Content-Type.' }, ...errors(401) },
            security,
          }),
        }
      }
      return {
        '/mcp': operation({
          id: 'postMcp',
          summary: 'A Model Context Protocol request: JSON-RPC 2.0 over streamable HTTP (plugin-mcp)',
          tag: 'MCP',
          requestBody: jsonBody(
            objectSchema({ jsonrpc: { const: '2.0' }, id: { type: ['integer', 'string'] }, method: { type: 'string' }, params: anyObject }, [
              'jsonrpc',
              'method',
            ]),
          ),
          responses: {
            200: { description: 'The JSON-RPC answer.', content: { 'application/json': { schema: rpc }, 'text/event-stream': { schema: { type: 'string' } } } },
            202: { description: 'A notification was accepted.' },
            400: json('Not a JSON-RPC request.', rpc),
            ...errors(401),
          },
          security,
        }),
      }
    }
  },
}
