/**
 * @module plugin-openapi/catalog/catalog
 * The endpoints Payload itself mounts (3.x and 4.x), keyed by scope + method + path exactly as they appear in the
 * sanitized config. The generator documents an endpoint when it is mounted and its entry is found here: no version
 * table, so 4.x additions (validate, upload-instructions) are documented where 4.x mounts them.
 */
import { authOperations } from '../operations/authOperations.js'
import { collectionOperations as c } from '../operations/collectionOperations.js'
import type { BuildContext, BuiltOperations, Scope } from '../operations/context.js'
import { globalOperations as g } from '../operations/globalOperations.js'
import { systemOperations as sys } from '../operations/systemOperations.js'
import { officialPluginEntries } from './officialPlugins.js'

/** Which option controls an entry (spec: "Filter" column). */
export type CatalogFilter = 'adminAuth' | 'auth' | 'jobs' | 'versions'

export interface CatalogEntry {
  scope: Scope['kind']
  method: string
  /** Path as Payload mounts it, relative to the collection, global or API root. */
  path: string
  /** Extra condition on the scope (e.g. jobs endpoints only on the jobs collection). */
  appliesTo?: (scope: Scope, b: BuildContext) => boolean
  filter?: CatalogFilter
  /** Known but left out of the description (spec: excluded endpoints), with the reason. */
  excluded?: string
  /** Matches mounted paths of this shape instead of `path` alone (a path with a name in it, `/payments/stripe/initiate`). */
  pattern?: RegExp
  /** `path` is the mounted path (for `pattern` entries). */
  build?: (b: BuildContext, scope: any, path?: string) => BuiltOperations
}

/** The jobs collection: Payload's own (`payload-jobs`, renamed in 4.x), recognised by the endpoints it mounts. */
export function isJobsCollection(scope: Scope): boolean {
  if (scope.kind !== 'collection') return false
  const eps = scope.collection.endpoints || []
  return /-jobs$/.test(scope.slug) && eps.some((e) => e.path === '/run') && eps.some((e) => e.path === '/handle-schedules')
}

const isAuth = (scope: Scope) => scope.kind === 'collection' && Boolean(scope.collection.auth)
const isUpload = (scope: Scope) => scope.kind === 'collection' && Boolean(scope.collection.upload)
const hasVersions = (scope: Scope) =>
  scope.kind === 'collection' ? Boolean(scope.collection.versions) : scope.kind === 'global' ? Boolean(scope.global.versions) : false
const noVersions = (scope: Scope) => !hasVersions(scope)
const localStrategy = (scope: Scope) =>
  isAuth(scope) && scope.kind === 'collection' && !(scope.collection.auth as { disableLocalStrategy?: unknown }).disableLocalStrategy
const noLocalStrategy = (scope: Scope) => isAuth(scope) && !localStrategy(scope)
const verifies = (scope: Scope) => localStrategy(scope) && scope.kind === 'collection' && Boolean((scope.collection.auth as { verify?: unknown }).verify)
const bulkEdit = (scope: Scope) => scope.kind === 'collection' && !(scope.collection as { disableBulkEdit?: boolean }).disableBulkEdit
const NO_BULK = '`disableBulkEdit` is set (spec: bulk update and delete appear only without it)'
const VERSIONS_OFF = 'versions are off: Payload 3.x mounts the route for every collection and global, it answers an error'
const NO_LOCAL = 'local strategy off (Payload 3.x mounts the route anyway)'
const isPreferences = (scope: Scope) => scope.kind === 'collection' && /-preferences$/.test(scope.slug)

export const catalog: CatalogEntry[] = [
  // Collections
  { scope: 'collection', method: 'get', path: '/', build: c.find },
  { scope: 'collection', method: 'post', path: '/', build: c.create },
  { scope: 'collection', method: 'patch', path: '/', appliesTo: bulkEdit, build: c.updateMany },
  { scope: 'collection', method: 'delete', path: '/', appliesTo: bulkEdit, build: c.deleteMany },
  { scope: 'collection', method: 'patch', path: '/', excluded: NO_BULK },
  { scope: 'collection', method: 'delete', path: '/', excluded: NO_BULK },
  { scope: 'collection', method: 'get', path: '/count', build: c.count },
  { scope: 'collection', method: 'get', path: '/:id', build: c.findByID },
  { scope: 'collection', method: 'patch', path: '/:id', build: c.updateByID },
  { scope: 'collection', method: 'delete', path: '/:id', build: c.deleteByID },
  { scope: 'collection', method: 'post', path: '/validate', build: (b, s) => c.validate(b, s, false) },
  { scope: 'collection', method: 'post', path: '/:id/validate', build: (b, s) => c.validate(b, s, true) },
  { scope: 'collection', method: 'post', path: '/:id/duplicate', build: c.duplicate },
  { scope: 'collection', method: 'get', appliesTo: isUpload, path: '/file/:filename', build: c.file },
  { scope: 'collection', method: 'get', appliesTo: isUpload, path: '/paste-url/:id?', excluded: 'admin helper for URL-paste uploads' },
  { scope: 'collection', method: 'get', appliesTo: isUpload, path: '/paste-url/:id', excluded: 'admin helper for URL-paste uploads' },
  { scope: 'collection', method: 'get', path: '/versions', appliesTo: hasVersions, filter: 'versions', build: c.findVersions },
  { scope: 'collection', method: 'get', path: '/versions/:id', appliesTo: hasVersions, filter: 'versions', build: c.findVersionByID },
  { scope: 'collection', method: 'post', path: '/versions/:id', appliesTo: hasVersions, filter: 'versions', build: c.restoreVersion },
  { scope: 'collection', method: 'post', path: '/access/:id?', filter: 'adminAuth', build: (b, s) => ({ ...c.access(b, s, false), ...c.access(b, s, true) }) },
  { scope: 'collection', method: 'post', path: '/access', filter: 'adminAuth', build: (b, s) => c.access(b, s, false) },
  { scope: 'collection', method: 'post', path: '/access/:id', filter: 'adminAuth', build: (b, s) => c.access(b, s, true) },
  // Auth collections
  ...(['/versions', '/versions/:id'] as const).flatMap((path) =>
    (['collection', 'global'] as const).flatMap((scope) =>
      (path === '/versions' ? (['get'] as const) : (['get', 'post'] as const)).map((method) => ({
        scope,
        method,
        path,
        appliesTo: noVersions,
        excluded: VERSIONS_OFF,
      })),
    ),
  ),
  { scope: 'collection', method: 'get', path: '/me', appliesTo: isAuth, filter: 'auth', build: authOperations.me },
  { scope: 'collection', method: 'post', path: '/logout', appliesTo: isAuth, filter: 'auth', build: authOperations.logout },
  { scope: 'collection', method: 'post', path: '/refresh-token', appliesTo: isAuth, filter: 'auth', build: authOperations.refresh },
  { scope: 'collection', method: 'post', path: '/login', appliesTo: localStrategy, filter: 'auth', build: authOperations.login },
  { scope: 'collection', method: 'post', path: '/forgot-password', appliesTo: localStrategy, filter: 'auth', build: authOperations.forgotPassword },
  { scope: 'collection', method: 'post', path: '/reset-password', appliesTo: localStrategy, filter: 'auth', build: authOperations.resetPassword },
  { scope: 'collection', method: 'post', path: '/unlock', appliesTo: localStrategy, filter: 'auth', build: authOperations.unlock },
  { scope: 'collection', method: 'post', path: '/verify/:id', appliesTo: verifies, filter: 'auth', build: authOperations.verify },
  { scope: 'collection', method: 'post', path: '/:id/api-key/reveal', appliesTo: isAuth, filter: 'auth', build: authOperations.revealAPIKey },
  { scope: 'collection', method: 'get', path: '/init', appliesTo: isAuth, filter: 'adminAuth', build: authOperations.init },
  { scope: 'collection', method: 'post', path: '/first-register', appliesTo: localStrategy, filter: 'adminAuth', build: authOperations.registerFirstUser },
  { scope: 'collection', method: 'post', path: '/verify/:id', appliesTo: isAuth, excluded: 'email verification is off (Payload 3.x mounts the route anyway)' },
  ...(['/login', '/forgot-password', '/reset-password', '/unlock', '/first-register'] as const).map((path) => ({
    scope: 'collection' as const,
    method: 'post',
    path,
    appliesTo: noLocalStrategy,
    excluded: NO_LOCAL,
  })),
  // Jobs (on the jobs collection)
  { scope: 'collection', method: 'get', path: '/run', filter: 'jobs', appliesTo: isJobsCollection, build: sys.runJobs },
  { scope: 'collection', method: 'get', path: '/handle-schedules', filter: 'jobs', appliesTo: isJobsCollection, build: sys.handleSchedules },
  // Preferences (admin panel)
  ...(['get', 'post', 'delete'] as const).map((method) => ({
    scope: 'collection' as const,
    method,
    path: '/:key',
    appliesTo: isPreferences,
    excluded: 'admin preferences',
  })),
  // Globals
  { scope: 'global', method: 'get', path: '/', build: g.findOne },
  { scope: 'global', method: 'post', path: '/', build: g.update },
  { scope: 'global', method: 'post', path: '/validate', build: g.validate },
  { scope: 'global', method: 'get', path: '/versions', appliesTo: hasVersions, filter: 'versions', build: g.findVersions },
  { scope: 'global', method: 'get', path: '/versions/:id', appliesTo: hasVersions, filter: 'versions', build: g.findVersionByID },
  { scope: 'global', method: 'post', path: '/versions/:id', appliesTo: hasVersions, filter: 'versions', build: g.restoreVersion },
  { scope: 'global', method: 'post', path: '/access', filter: 'adminAuth', build: g.access },
  // Root
  { scope: 'root', method: 'get', path: '/access', filter: 'adminAuth', build: sys.access },
  { scope: 'root', method: 'post', path: '/upload-instructions', build: sys.createUploadInstructions },
  { scope: 'root', method: 'put', path: '/upload-instructions/:uploadId', build: sys.putUploadInstructions },
  { scope: 'root', method: 'delete', path: '/upload-instructions/:uploadId', build: sys.deleteUploadInstructions },
  { scope: 'root', method: 'post', path: '/reorder', excluded: 'admin drag-and-drop ordering' },
  { scope: 'root', method: 'get', path: '/og', excluded: 'admin image endpoint' },
  { scope: 'root', method: 'post', path: '/graphql', excluded: 'not REST' },
  { scope: 'root', method: 'get', path: '/graphql-playground', excluded: 'not REST' },
]

/** Same pattern whatever the parameter names: `/:id` and `/:key` collide in Payload's router. */
export function routeKey(method: string, path: string): string {
  return `${method.toLowerCase()} ${normalizePath(path).replace(/:[A-Za-z0-9_]+(\?)?/g, ':$1')}`
}

/** `''` and trailing slashes as Payload's router sees them. */
export function normalizePath(path: string): string {
  const p = path.startsWith('/') ? path : `/${path}`
  return p.length > 1 ? p.replace(/\/+$/, '') : p
}

const index = new Map<string, CatalogEntry[]>()
const patterned = [...catalog, ...officialPluginEntries].filter((e) => e.pattern)
for (const entry of [...catalog, ...officialPluginEntries].filter((e) => !e.pattern)) {
  const key = `${entry.scope} ${entry.method} ${entry.path}`
  index.set(key, [...(index.get(key) ?? []), entry])
}

/** The catalog entry of a mounted endpoint, if Payload's. */
export function findCatalogEntry(scope: Scope, method: string, path: string, b: BuildContext): CatalogEntry | undefined {
  const p = normalizePath(path)
  const candidates =
    index.get(`${scope.kind} ${method.toLowerCase()} ${p}`) ??
    patterned.filter((e) => e.scope === scope.kind && e.method === method.toLowerCase() && e.pattern!.test(p))
  return candidates.find((e) => !e.appliesTo || e.appliesTo(scope, b))
}
