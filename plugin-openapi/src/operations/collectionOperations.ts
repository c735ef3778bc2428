/**
 * @module plugin-openapi/operations/collectionOperations
 * Builders of the operations every collection mounts (CRUD, bulk, count, duplicate, versions, access, validate, file).
 */
import type { OpenAPIV3_1 } from '../openapi.js'
import { objectSchema, ref, type Schema } from '../schemas/jsonSchema.js'
import { hierarchyPathFields, paginated } from '../schemas/schemaRegistry.js'
import { draftsOf, operation, params, pathParam, withArticle, type BuildContext, type BuiltOperations, type Scope } from './context.js'
import { docMessage, entityAccessSchema, errors, json, type Responses } from './responses.js'

type CollectionScope = Extract<Scope, { kind: 'collection' }>

/** Body of a create/update: JSON, and for upload collections multipart with `file` + `_payload` (JSON of the other fields). */
export function documentBody(s: CollectionScope, schema: Schema, required: boolean, create = false): OpenAPIV3_1.RequestBodyObject {
  const upload = s.collection.upload as { filesRequiredOnCreate?: boolean } | undefined
  // Creating in an upload collection without a file answers 400 "No files were uploaded." unless files are optional.
  const jsonAllowed = !(create && upload && upload.filesRequiredOnCreate !== false)
  const content: OpenAPIV3_1.RequestBodyObject['content'] = jsonAllowed ? { 'application/json': { schema } } : {}
  if (upload) {
    content['multipart/form-data'] = {
      schema: objectSchema(
        {
          file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file.' },
          _payload: {
            type: 'string',
            contentMediaType: 'application/json',
            contentSchema: schema,
            description: 'Every other field, as JSON (plain form fields are ignored).',
          },
        },
        required ? ['file'] : [],
      ),
      encoding: { _payload: { contentType: 'application/json' } },
    }
  }
  return { required, content }
}

/** Upload collections take multipart bodies, which Payload refuses with 413 past its limits. */
const multipart = (s: CollectionScope): 413[] => (s.collection.upload ? [413] : [])

const idParam = (b: BuildContext, s: CollectionScope) => pathParam('id', b.registry.idSchema(s.slug), `ID of the \`${s.slug}\` document.`)

const has = {
  drafts: (s: CollectionScope) => draftsOf(s.collection) !== undefined,
  autosave: (s: CollectionScope) => Boolean(draftsOf(s.collection)?.autosave),
  localizeStatus: (s: CollectionScope) => Boolean(draftsOf(s.collection)?.localizeStatus),
  trash: (s: CollectionScope) => Boolean((s.collection as { trash?: unknown }).trash),
  lock: (s: CollectionScope) => s.collection.lockDocuments !== false,
}

/** Parameters of create, update, delete and duplicate (spec: write query parameters). */
function writeParams(b: BuildContext, s: CollectionScope, ...extra: (string | false)[]) {
  return params(b, s, 'depth', 'locale', 'fallbackLocale', 'select', 'populate', has.drafts(s) && 'draft', has.trash(s) && 'trash', ...extra)
}

function readParams(b: BuildContext, s: CollectionScope, list: boolean) {
  return params(
    b,
    s,
    hierarchyPathFields(s.collection).length > 0 && 'computeHierarchyPaths',
    'depth',
    'locale',
    'fallbackLocale',
    'select',
    'populate',
    'joins',
    has.drafts(s) && 'draft',
    has.trash(s) && 'trash',
    list && 'where',
    list && 'limit',
    list && 'page',
    list && 'sort',
    list && 'pagination',
  )
}

const bulkResults = new WeakMap<BuildContext, Map<string, Schema>>()
function bulkResult(b: BuildContext, s: CollectionScope): Schema {
  let perDoc = bulkResults.get(b)
  if (!perDoc) bulkResults.set(b, (perDoc = new Map()))
  let out = perDoc.get(s.slug)
  if (!out) perDoc.set(s.slug, (out = buildBulkResult(b, s)))
  return out
}

const buildBulkResult = (b: BuildContext, s: CollectionScope): Schema =>
  objectSchema(
    {
      docs: { type: 'array', items: b.registry.collectionSchema(s.slug, 'read') },
      errors: { type: 'array', items: ref('BulkError') },
      message: { type: 'string' },
    },
    ['docs', 'errors', 'message'],
  )

function collectionAccess(b: BuildContext, s: CollectionScope): Schema {
  const auth = s.collection.auth as { maxLoginAttempts?: number } | undefined
  const ops = ['create', 'read', 'update', 'delete', 'validate']
  if (s.collection.versions) ops.push('readVersions')
  if (auth && (auth.maxLoginAttempts ?? 0) > 0) ops.push('unlock')
  return entityAccessSchema(b.registry.schemas, s.name, ops)
}

/**
 * Answers of `file/{filename}`. With a storage handler (a cloud-storage adapter's `staticHandler` in
 * `upload.handlers`) the handler answers: the bytes, or a redirect to where the file is served (a CDN), and its
 * own 404, which may have no body at all. Without one, Payload serves the file from disk, 404 in its JSON shape.
 */
function fileResponses(s: CollectionScope): Responses {
  const bytes = { description: 'The file bytes.', content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } }
  const handlers = (s.collection.upload as { handlers?: unknown[] } | undefined)?.handlers ?? []
  if (handlers.length === 0) return { 200: bytes, ...errors(403, 404) }
  return {
    200: bytes,
    302: {
      description: 'The storage serves the file elsewhere (e.g. a CDN URL, signed when the zone needs it): follow `Location`.',
      headers: { Location: { required: true, description: 'Where the file is served.', schema: { type: 'string', format: 'uri-reference' } } },
    },
    ...errors(403),
    404: { description: "Not found: the storage handler's answer (possibly with no body), or Payload's JSON error." },
  }
}

export const collectionOperations = {
  find(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '': operation({
        id: `find${s.name}`,
        summary: `List ${s.labels.plural}`,
        tag: s.tag,
        parameters: readParams(b, s, true),
        responses: { 200: json('A page of documents.', b.registry.listSchema(s.slug)), ...errors(400, 403) },
        security: b.security.optional,
      }),
    }
  },
  create(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '': operation({
        id: `create${s.name}`,
        summary: `Create ${withArticle(s.labels.singular)}`,
        tag: s.tag,
        parameters: writeParams(b, s, has.autosave(s) && 'autosave', has.localizeStatus(s) && 'publishAllLocales'),
        requestBody: documentBody(s, b.registry.collectionSchema(s.slug, 'create'), true, true),
        responses: { 201: json('Created.', docMessage(b.registry.collectionSchema(s.slug, 'read'))), ...errors(400, 403, ...multipart(s)) },
        security: b.security.optional,
      }),
    }
  },
  updateMany(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '': operation({
        id: `update${s.name}`,
        summary: `Update every ${s.labels.singular} matching \`where\``,
        tag: s.tag,
        parameters: writeParams(
          b,
          s,
          'whereRequired',
          'bulkLimit',
          'bulkSort',
          has.localizeStatus(s) && 'publishAllLocales',
          has.localizeStatus(s) && 'unpublishAllLocales',
          has.lock(s) && 'overrideLock',
        ),
        requestBody: documentBody(s, b.registry.collectionSchema(s.slug, 'update'), true),
        responses: {
          200: json('Updated.', bulkResult(b, s)),
          400: json('Some documents could not be updated (same shape), or bad data.', { anyOf: [bulkResult(b, s), ref('Error')] }),
          ...errors(403, ...multipart(s)),
        },
        security: b.security.optional,
      }),
    }
  },
  deleteMany(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '': operation({
        id: `delete${s.name}`,
        summary: `Delete every ${s.labels.singular} matching \`where\``,
        tag: s.tag,
        parameters: writeParams(b, s, 'whereRequired', has.lock(s) && 'overrideLock'),
        responses: {
          200: json('Deleted.', bulkResult(b, s)),
          400: json('Some documents could not be deleted (same shape), or a bad query.', { anyOf: [bulkResult(b, s), ref('Error')] }),
          ...errors(403),
        },
        security: b.security.optional,
      }),
    }
  },
  count(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/count': operation({
        id: `count${s.name}`,
        summary: `Count ${s.labels.plural}`,
        tag: s.tag,
        parameters: params(b, s, 'where', 'locale', has.trash(s) && 'trash'),
        responses: { 200: json('Count.', objectSchema({ totalDocs: { type: 'integer' } }, ['totalDocs'])), ...errors(400, 403) },
        security: b.security.optional,
      }),
    }
  },
  findByID(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/{id}': operation({
        id: `find${s.name}ByID`,
        summary: `Get ${withArticle(s.labels.singular)}`,
        tag: s.tag,
        parameters: [idParam(b, s), ...readParams(b, s, false)],
        responses: { 200: json('The document.', b.registry.collectionSchema(s.slug, 'read')), ...errors(403, 404) },
        security: b.security.optional,
      }),
    }
  },
  updateByID(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/{id}': operation({
        id: `update${s.name}ByID`,
        summary: `Update ${withArticle(s.labels.singular)}`,
        tag: s.tag,
        parameters: [
          idParam(b, s),
          ...writeParams(
            b,
            s,
            has.autosave(s) && 'autosave',
            has.localizeStatus(s) && 'publishAllLocales',
            has.localizeStatus(s) && 'unpublishAllLocales',
            has.lock(s) && 'overrideLock',
          ),
        ],
        requestBody: documentBody(s, b.registry.collectionSchema(s.slug, 'update'), true),
        responses: { 200: json('Updated.', docMessage(b.registry.collectionSchema(s.slug, 'read'))), ...errors(400, 403, 404, ...multipart(s)) },
        security: b.security.optional,
      }),
    }
  },
  deleteByID(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/{id}': operation({
        id: `delete${s.name}ByID`,
        summary: `Delete ${withArticle(s.labels.singular)}`,
        tag: s.tag,
        parameters: [idParam(b, s), ...writeParams(b, s, has.lock(s) && 'overrideLock')],
        responses: { 200: json('Deleted.', docMessage(b.registry.collectionSchema(s.slug, 'read'))), ...errors(403, 404) },
        security: b.security.optional,
      }),
    }
  },
  duplicate(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/{id}/duplicate': operation({
        id: `duplicate${s.name}`,
        summary: `Duplicate ${withArticle(s.labels.singular)}`,
        tag: s.tag,
        parameters: [idParam(b, s), ...writeParams(b, s, 'selectedLocales')],
        requestBody: { required: false, content: { 'application/json': { schema: b.registry.collectionSchema(s.slug, 'update') } } },
        responses: { 200: json('The copy.', docMessage(b.registry.collectionSchema(s.slug, 'read'))), ...errors(400, 403, 404) },
        security: b.security.optional,
      }),
    }
  },
  file(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/file/{filename}': operation({
        id: `get${s.name}File`,
        summary: `Download the file of ${withArticle(s.labels.singular)} (or one of its image sizes)`,
        tag: s.tag,
        parameters: [pathParam('filename', { type: 'string' })],
        responses: fileResponses(s),
        security: b.security.optional,
      }),
    }
  },
  findVersions(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/versions': operation({
        id: `find${s.name}Versions`,
        summary: `List versions of ${s.labels.plural}`,
        tag: s.tag,
        parameters: params(
          b,
          s,
          'depth',
          'locale',
          'fallbackLocale',
          'versionSelect',
          'populate',
          'versionWhere',
          'limit',
          'page',
          'sort',
          'pagination',
          has.trash(s) && 'trash',
        ),
        responses: { 200: json('A page of versions.', paginated(b.registry.versionSchema(s.slug, 'collection'), 'A page of versions.')), ...errors(400, 403) },
        security: b.security.optional,
      }),
    }
  },
  findVersionByID(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/versions/{id}': operation({
        id: `find${s.name}VersionByID`,
        summary: `Get a version of ${withArticle(s.labels.singular)}`,
        tag: s.tag,
        parameters: [
          pathParam('id', { type: ['integer', 'string'] }, 'ID of the version.'),
          ...params(b, s, 'depth', 'locale', 'fallbackLocale', 'versionSelect', 'populate', has.trash(s) && 'trash'),
        ],
        // 400: an ID Payload reads as missing (`0`).
        responses: { 200: json('The version.', b.registry.versionSchema(s.slug, 'collection')), ...errors(400, 403, 404) },
        security: b.security.optional,
      }),
    }
  },
  restoreVersion(b: BuildContext, s: CollectionScope): BuiltOperations {
    const restored: Schema = { allOf: [b.registry.collectionSchema(s.slug, 'read'), objectSchema({ message: { type: 'string' } }, ['message'])] }
    return {
      '/versions/{id}': operation({
        id: `restore${s.name}Version`,
        summary: `Restore a version of ${withArticle(s.labels.singular)}`,
        tag: s.tag,
        parameters: [
          pathParam('id', { type: ['integer', 'string'] }, 'ID of the version.'),
          ...params(b, s, 'depth', 'locale', 'fallbackLocale', 'populate', has.drafts(s) && 'draft'),
        ],
        responses: { 200: json('The restored document plus `message`.', restored), ...errors(400, 403, 404) },
        security: b.security.optional,
      }),
    }
  },
  access(b: BuildContext, s: CollectionScope, withId: boolean): BuiltOperations {
    const body = { required: false, content: { 'application/json': { schema: b.registry.collectionSchema(s.slug, 'update') } } }
    const build = (id: boolean) =>
      operation({
        id: id ? `get${s.name}DocumentAccess` : `get${s.name}Access`,
        summary: id ? `What the current user may do with one ${s.labels.singular}` : `What the current user may do in ${s.labels.plural}`,
        tag: s.tag,
        parameters: id ? [idParam(b, s)] : [],
        requestBody: body,
        // 400: a body that is not JSON; 404: no document with that ID.
        responses: { 200: json('Permissions.', collectionAccess(b, s)), ...errors(400, 403, ...(id ? ([404] as const) : [])) },
        security: b.security.optional,
      })
    return withId ? { '/access/{id}': build(true) } : { '/access': build(false) }
  },
  validate(b: BuildContext, s: CollectionScope, withId: boolean): BuiltOperations {
    const mode = withId ? 'update' : 'create'
    const o = operation({
      id: withId ? `validate${s.name}ByID` : `validate${s.name}`,
      summary: withId ? `Validate changes to ${withArticle(s.labels.singular)} (nothing is saved)` : `Validate a new ${s.labels.singular} (nothing is saved)`,
      tag: s.tag,
      parameters: [...(withId ? [idParam(b, s)] : []), ...params(b, s, 'validateLocale')],
      requestBody: { required: !withId, content: { 'application/json': { schema: b.registry.collectionSchema(s.slug, mode) } } },
      responses: {
        200: json('Validation result (also when a field is invalid).', ref('ValidationResult')),
        ...errors(400, 403, ...(withId ? ([404] as const) : [])),
      },
      security: b.security.optional,
    })
    return withId ? { '/{id}/validate': o } : { '/validate': o }
  },
}
