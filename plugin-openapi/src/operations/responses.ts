/**
 * @module plugin-openapi/operations/responses
 * Response helpers and the shared error components, shaped as Payload 3.90 really answers
 * (`routeError` -> `formatErrors`: `{errors: [{message, name?, data?}]}`; a few handlers answer `{message}`).
 */
import type { OpenAPIV3_1 } from '../openapi.js'
import { objectSchema, ref, type Schema } from '../schemas/jsonSchema.js'

export type Responses = OpenAPIV3_1.OperationObject['responses']

/** A JSON response. */
export function json(description: string, schema: Schema): OpenAPIV3_1.ResponseObject {
  return { description, content: { 'application/json': { schema } } }
}

/** `{doc, message}`. */
export const docMessage = (doc: Schema): Schema => objectSchema({ doc, message: { type: 'string' } }, ['doc', 'message'])

const MESSAGE: Schema = objectSchema({ message: { type: 'string' } }, ['message'])
/** `{message}` (one shared object: the document is built once and never mutated). */
export const message = (): Schema => MESSAGE

/** Shared schemas of errors and access results. */
export function commonSchemas(): Record<string, Schema> {
  const permission: Schema = {
    anyOf: [{ type: 'boolean' }, objectSchema({ permission: { type: 'boolean' }, where: { type: 'object', additionalProperties: true } }, ['permission'])],
  }
  return {
    Error: {
      description: 'Error answer: `{errors: [{message, ...}]}` from the error handler, or `{message}` / `{error}` from a few handlers.',
      anyOf: [
        objectSchema(
          {
            errors: {
              type: 'array',
              items: objectSchema({ message: { type: 'string' }, name: { type: 'string' }, data: {}, field: { type: 'string' } }, ['message']),
            },
          },
          ['errors'],
        ),
        objectSchema({ message: { type: 'string' } }, ['message']),
        objectSchema({ error: {} }, ['error']),
      ],
    },
    Permission: permission,
    EntityAccess: {
      type: 'object',
      description: 'What the current user may do; operations the user may not do may be missing. `fields` is true or a per-field map.',
      properties: { fields: { anyOf: [{ type: 'boolean' }, { type: 'object', additionalProperties: true }] } },
      additionalProperties: ref('Permission'),
    },
    Permissions: objectSchema(
      {
        canAccessAdmin: { type: 'boolean' },
        collections: { type: 'object', additionalProperties: ref('EntityAccess') },
        globals: { type: 'object', additionalProperties: ref('EntityAccess') },
      },
      [],
      { description: 'Permissions of the current user on every collection and global (only what the user may do is listed).' },
    ),
    BulkError: objectSchema({ id: { type: ['integer', 'string'] }, message: { type: 'string' } }, ['message'], {
      description: 'A document a bulk operation could not change.',
    }),
    ValidationResult: objectSchema(
      {
        valid: { type: 'boolean' },
        errors: {
          type: 'array',
          items: objectSchema(
            { message: { type: 'string' }, path: { type: 'string' }, label: { type: 'string' }, locale: { type: 'string' }, tableName: { type: 'string' } },
            ['message', 'path'],
          ),
        },
      },
      ['valid', 'errors'],
      { description: 'Answer of a validate operation: nothing is saved.' },
    ),
  }
}

/**
 * `<Name>Access`: what the user may do with a collection or global (spec "Document access"): each operation is
 * `true` or `{permission, where}`; `readVersions` with versions, `unlock` with `auth.maxLoginAttempts`; operations
 * the user may not do may be missing. Registered once per entity.
 */
export function entityAccessSchema(schemas: Record<string, Schema>, name: string, operations: string[]): Schema {
  const component = `${name}Access`
  schemas[component] ??= objectSchema(
    {
      fields: { anyOf: [{ type: 'boolean' }, { type: 'object', additionalProperties: true }], description: 'true, or a per-field permission map.' },
      ...Object.fromEntries(operations.map((op) => [op, ref('Permission')])),
    },
    [],
    { description: 'What the current user may do; operations the user may not do may be missing.' },
  )
  return ref(component)
}

/** Shared error responses, keyed by status. */
export function errorResponses(): Record<string, OpenAPIV3_1.ResponseObject> {
  const err = (description: string) => json(description, ref('Error'))
  return {
    BadRequest: err('Bad request: invalid data, query or a validation error.'),
    Unauthorized: err('Not authenticated, or the credentials are wrong.'),
    Forbidden: err('The current user may not perform this action.'),
    NotFound: err('Not found.'),
    PayloadTooLarge: err('A multipart limit was reached (too many files, fields or parts, or a field too long).'),
  }
}

/** Error responses an operation lists (by status), as `$ref`s. */
const errorRefs = {
  400: { $ref: '#/components/responses/BadRequest' },
  401: { $ref: '#/components/responses/Unauthorized' },
  403: { $ref: '#/components/responses/Forbidden' },
  404: { $ref: '#/components/responses/NotFound' },
  413: { $ref: '#/components/responses/PayloadTooLarge' },
} as const
export function errors(...statuses: (keyof typeof errorRefs)[]): Responses {
  const out: Responses = {}
  for (const s of statuses) out[s] = errorRefs[s]
  return out
}
