/**
 * @module plugin-openapi/operations/globalOperations
 * Builders of the operations every global mounts.
 */
import { nullable, objectSchema, ref, type Schema } from '../schemas/jsonSchema.js'
import { paginated } from '../schemas/schemaRegistry.js'
import { draftsOf, operation, params, pathParam, type BuildContext, type BuiltOperations, type Scope } from './context.js'
import { docMessage, entityAccessSchema, errors, json } from './responses.js'

type GlobalScope = Extract<Scope, { kind: 'global' }>

const versionID = pathParam('id', { type: ['integer', 'string'] }, 'ID of the version.')
const drafts = (s: GlobalScope) => draftsOf(s.global)

export const globalOperations = {
  findOne(b: BuildContext, s: GlobalScope): BuiltOperations {
    return {
      '': operation({
        id: `get${s.name}`,
        summary: `Get ${s.labels.singular}`,
        tag: s.tag,
        parameters: params(b, s, 'depth', 'locale', 'fallbackLocale', 'select', 'populate', drafts(s) && 'draft'),
        responses: { 200: json('The global.', b.registry.globalSchema(s.slug, 'read')), ...errors(403) },
        security: b.security.optional,
      }),
    }
  },
  update(b: BuildContext, s: GlobalScope): BuiltOperations {
    const d = drafts(s)
    return {
      '': operation({
        id: `update${s.name}`,
        summary: `Update ${s.labels.singular}`,
        tag: s.tag,
        parameters: params(
          b,
          s,
          'depth',
          'locale',
          'fallbackLocale',
          'select',
          'populate',
          d && 'draft',
          Boolean(d?.autosave) && 'autosave',
          Boolean(d?.localizeStatus) && 'publishAllLocales',
          Boolean(d?.localizeStatus) && 'unpublishAllLocales',
        ),
        requestBody: { required: true, content: { 'application/json': { schema: b.registry.globalSchema(s.slug, 'update') } } },
        responses: {
          200: json(
            'Updated: `{message, result}`.',
            objectSchema({ message: { type: 'string' }, result: b.registry.globalSchema(s.slug, 'read') }, ['message', 'result']),
          ),
          ...errors(400, 403),
        },
        security: b.security.optional,
      }),
    }
  },
  findVersions(b: BuildContext, s: GlobalScope): BuiltOperations {
    return {
      '/versions': operation({
        id: `find${s.name}Versions`,
        summary: `List versions of ${s.labels.singular}`,
        tag: s.tag,
        parameters: params(b, s, 'depth', 'locale', 'fallbackLocale', 'versionSelect', 'populate', 'versionWhere', 'limit', 'page', 'sort', 'pagination'),
        responses: { 200: json('A page of versions.', paginated(b.registry.versionSchema(s.slug, 'global'), 'A page of versions.')), ...errors(400, 403) },
        security: b.security.optional,
      }),
    }
  },
  findVersionByID(b: BuildContext, s: GlobalScope): BuiltOperations {
    return {
      '/versions/{id}': operation({
        id: `find${s.name}VersionByID`,
        summary: `Get a version of ${s.labels.singular}`,
        tag: s.tag,
        parameters: [versionID, ...params(b, s, 'depth', 'locale', 'fallbackLocale', 'versionSelect', 'populate')],
        responses: { 200: json('The version.', b.registry.versionSchema(s.slug, 'global')), ...errors(400, 403, 404) },
        security: b.security.optional,
      }),
    }
  },
  restoreVersion(b: BuildContext, s: GlobalScope): BuiltOperations {
    // Payload 3.90 answers the restored version row merged with the global's fields.
    b.registry.versionSchema(s.slug, 'global') // registers <Global>VersionData
    const restored: Schema = {
      allOf: [
        b.registry.globalSchema(s.slug, 'read'),
        objectSchema(
          {
            version: ref(`${b.registry.nameOf(s.slug, 'global')}VersionData`),
            snapshot: nullable({ type: 'boolean' }),
            publishedLocale: nullable({ type: 'string' }),
            latest: nullable({ type: 'boolean' }),
          },
          [],
        ),
      ],
    }
    return {
      '/versions/{id}': operation({
        id: `restore${s.name}Version`,
        summary: `Restore a version of ${s.labels.singular}`,
        tag: s.tag,
        parameters: [versionID, ...params(b, s, 'depth', 'locale', 'fallbackLocale', 'populate', drafts(s) && 'draft')],
        responses: {
          200: json('Restored: `{doc, message}`; `doc` is the restored version merged with the global.', docMessage(restored)),
          ...errors(400, 403, 404),
        },
        security: b.security.optional,
      }),
    }
  },
  access(b: BuildContext, s: GlobalScope): BuiltOperations {
    return {
      '/access': operation({
        id: `get${s.name}Access`,
        summary: `What the current user may do with ${s.labels.singular}`,
        tag: s.tag,
        requestBody: { required: false, content: { 'application/json': { schema: b.registry.globalSchema(s.slug, 'update') } } },
        responses: {
          200: json(
            'Permissions.',
            entityAccessSchema(b.registry.schemas, s.name, ['read', 'update', 'validate', ...(s.global.versions ? ['readVersions'] : [])]),
          ),
          ...errors(400, 403),
        },
        security: b.security.optional,
      }),
    }
  },
  validate(b: BuildContext, s: GlobalScope): BuiltOperations {
    return {
      '/validate': operation({
        id: `validate${s.name}`,
        summary: `Validate changes to ${s.labels.singular} (nothing is saved)`,
        tag: s.tag,
        parameters: params(b, s, 'validateLocale'),
        requestBody: { required: false, content: { 'application/json': { schema: b.registry.globalSchema(s.slug, 'update') } } },
        responses: { 200: json('Validation result.', ref('ValidationResult')), ...errors(400, 403) },
        security: b.security.optional,
      }),
    }
  },
}
