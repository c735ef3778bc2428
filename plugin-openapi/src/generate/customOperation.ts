/**
 * @module plugin-openapi/generate/customOperation
 * A custom endpoint's `custom.openapi`, merged over a generated default, and the check that its `$ref`s resolve.
 */
import type { OpenAPIV3_1 } from '../openapi.js'
import type { BuildContext, Operation, Scope } from '../operations/context.js'
import type { CustomEndpointOpenAPI } from '../types.js'

/**
 * Default schema of a path parameter: `{id}` on a collection's own endpoint is a document ID, typed like
 * every generated operation's (integer on SQL adapters with numeric IDs, string on MongoDB, a custom `id`
 * field as declared); anything else is a string.
 */
function pathParamSchema(b: BuildContext, scope: Scope, name: string): OpenAPIV3_1.SchemaObject {
  return scope.kind === 'collection' && name === 'id' ? (b.registry.idSchema(scope.slug) as OpenAPIV3_1.SchemaObject) : { type: 'string' }
}

/** Merges `custom.openapi` over the default operation of a custom endpoint. */
export function customOperation(b: BuildContext, scope: Scope, method: string, openapiPath: string, custom: CustomEndpointOpenAPI, apiRoute = ''): Operation {
  const { components: _components, ...overrides } = custom
  const pathParams: OpenAPIV3_1.ParameterObject[] = [...openapiPath.matchAll(/\{([^}]+)\}/g)].map((m) => ({
    name: m[1]!,
    in: 'path',
    required: true,
    schema: pathParamSchema(b, scope, m[1]!),
  }))
  const given = (overrides.parameters ?? []) as OpenAPIV3_1.ParameterObject[]
  const parameters = [...pathParams.filter((p) => !given.some((g) => g.name === p.name && g.in === p.in)), ...given]
  const relative = openapiPath.startsWith(apiRoute) ? openapiPath.slice(apiRoute.length) : openapiPath
  const operationId = `${method}${relative
    .replace(/\{([^}]+)\}/g, 'By-$1')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}`
  const out: Operation = {
    operationId,
    summary: `${method.toUpperCase()} ${openapiPath}`,
    tags: [scope.tag],
    ...overrides,
    responses: overrides.responses ?? { 200: { description: 'Successful response.' } },
    security: overrides.security ?? b.security.optional,
  }
  if (parameters.length > 0) out.parameters = parameters
  return out
}

/** Every `$ref` string inside a value. */
export function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, out)
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v)
      else collectRefs(v, out)
    }
  }
  return out
}

/** Resolves a local JSON pointer (`#/components/schemas/X`) in the document. */
export function resolvesIn(doc: unknown, pointer: string): boolean {
  if (!pointer.startsWith('#/')) return false
  let node: unknown = doc
  for (const raw of pointer.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    if (!node || typeof node !== 'object' || !(key in node)) return false
    node = (node as Record<string, unknown>)[key]
  }
  return true
}
