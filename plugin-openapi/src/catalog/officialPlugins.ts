/**
 * @module plugin-openapi/catalog/officialPlugins
 * Catalog entries of the endpoints Payload's official plugins mount, recognised by where they are mounted
 * (scope, method, path) and, where a path alone could be an app's own, by the collection the plugin builds.
 */
import type { Scope } from '../operations/context.js'
import { pluginOperations as p } from '../operations/pluginOperations.js'
import type { CatalogEntry } from './catalog.js'

const fieldsOf = (scope: Scope) => (scope.kind === 'collection' ? scope.collection.fields : [])
/** plugin-search's collection: its polymorphic `doc` relationship to the indexed document. */
const isSearch = (scope: Scope) => fieldsOf(scope).some((f) => 'name' in f && f.name === 'doc' && f.type === 'relationship')
const mounts = (scope: Scope, method: string, path: string) =>
  scope.kind === 'collection' && (scope.collection.endpoints || []).some((e) => e.method === method && e.path === path)
/** plugin-import-export's exports collection: it mounts both `download` and `export-preview`. */
const isExports = (scope: Scope) => mounts(scope, 'post', '/download') && mounts(scope, 'post', '/export-preview')
/** plugin-ecommerce's carts collection: it mounts `add-item` beside the other cart actions. */
const isCarts = (scope: Scope) => mounts(scope, 'post', '/:id/add-item') && mounts(scope, 'post', '/:id/clear')

export const officialPluginEntries: CatalogEntry[] = [
  ...(['title', 'description', 'url', 'image'] as const).map((kind) => ({
    scope: 'root' as const,
    method: 'post',
    path: `/plugin-seo/generate-${kind}`,
    build: p.seoGenerate(kind),
  })),
  { scope: 'collection', method: 'post', path: '/reindex', appliesTo: isSearch, build: p.reindex },
  { scope: 'collection', method: 'get', path: '/populate-tenant-options', build: p.tenantOptions },
  { scope: 'collection', method: 'post', path: '/download', appliesTo: isExports, build: p.exportDownload },
  { scope: 'collection', method: 'post', path: '/export-preview', appliesTo: isExports, build: p.exportPreview },
  { scope: 'collection', method: 'post', path: '/preview-data', build: p.importPreview },
  ...(['add-item', 'clear', 'merge', 'remove-item', 'update-item'] as const).map((action) => ({
    scope: 'collection' as const,
    method: 'post',
    path: `/:id/${action}`,
    appliesTo: isCarts,
    build: p.cart(action),
  })),
  {
    scope: 'root',
    method: 'post',
    path: '/payments/:method/:step',
    pattern: /^\/payments\/([^/]+)\/(initiate|confirm-order)$/,
    build: (b, _scope, path) => {
      const [, method, step] = /^\/payments\/([^/]+)\/(initiate|confirm-order)$/.exec(path ?? '')!
      return p.payment(method!, step as 'confirm-order' | 'initiate')(b)
    },
  },
  { scope: 'root', method: 'post', path: '/mcp', build: p.mcp('post') },
  { scope: 'root', method: 'get', path: '/mcp', build: p.mcp('get') },
]
