/**
 * @module plugin-openapi/operations/parameters
 * Query parameters Payload reads (`parseParams`), as reusable component parameters.
 */
import type { OpenAPIV3_1 } from '../openapi.js'

type Param = OpenAPIV3_1.ParameterObject

const boolParam = (name: string, description: string): Param => ({ name, in: 'query', description, schema: { type: 'boolean' } })

/** Every query parameter the generator may use, keyed by component name. */
export function queryParameters(localeCodes: string[] | undefined): Record<string, Param> {
  const params: Record<string, Param> = {
    depth: { name: 'depth', in: 'query', description: 'How deep relationships are populated (0 = IDs only).', schema: { type: 'integer', minimum: 0 } },
    limit: { name: 'limit', in: 'query', description: 'Documents per page (0 = no limit).', schema: { type: 'integer', minimum: 0 } },
    bulkLimit: { name: 'limit', in: 'query', description: 'How many matching documents are updated at most.', schema: { type: 'integer', minimum: 0 } },
    page: { name: 'page', in: 'query', description: 'Page number (from 1).', schema: { type: 'integer', minimum: 1 } },
    pagination: boolParam('pagination', 'false returns every matching document without pagination fields being computed.'),
    sort: { name: 'sort', in: 'query', description: 'Field to sort by, `-field` for descending; several comma-separated.', schema: { type: 'string' } },
    bulkSort: { name: 'sort', in: 'query', description: 'Order in which matching documents are updated.', schema: { type: 'string' } },
    draft: boolParam('draft', 'Read or write the newest draft instead of the published version.'),
    trash: boolParam('trash', 'Include documents in the trash.'),
    autosave: boolParam('autosave', 'Save as an autosave draft (drafts with autosave on).'),
    publishAllLocales: boolParam('publishAllLocales', 'Publish every locale at once (status per locale).'),
    unpublishAllLocales: boolParam('unpublishAllLocales', 'Unpublish every locale at once (status per locale).'),
    overrideLock: boolParam('overrideLock', 'Write even when another user holds the document lock.'),
    computeHierarchyPaths: boolParam('computeHierarchyPaths', 'Compute the hierarchy path fields (folder and tag collections).'),
  }
  if (localeCodes) {
    params.locale = {
      name: 'locale',
      in: 'query',
      description: 'Locale of the data read or written; `all` returns every locale keyed by code.',
      schema: { type: 'string', enum: [...localeCodes, 'all'] },
    }
    params.fallbackLocale = {
      name: 'fallback-locale',
      in: 'query',
      description: 'Locale used when a value is missing, or `none`.',
      schema: { type: 'string', enum: [...localeCodes, 'none'] },
    }
    params.selectedLocales = {
      name: 'selectedLocales[]',
      in: 'query',
      description: 'Locales copied to the duplicate; sent once per locale.',
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { type: 'string', enum: localeCodes } },
    }
    params.validateLocale = {
      name: 'locale',
      in: 'query',
      description: 'Locales to validate, or `all`; sent once per locale.',
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { type: 'string', enum: [...localeCodes, 'all'] } },
    }
  }
  return params
}

/** `$ref` to a component parameter. */
const refs = new Map<string, OpenAPIV3_1.ReferenceObject>()
export function paramRef(name: string): OpenAPIV3_1.ReferenceObject {
  let r = refs.get(name)
  if (!r) refs.set(name, (r = { $ref: `#/components/parameters/${name}` }))
  return r
}

/** A `qs`-style object parameter (`where[title][equals]=x`), as Payload's REST handlers parse the query string. */
export function deepObjectParam(name: string, schema: OpenAPIV3_1.SchemaObject, description: string, required = false): Param {
  return { name, in: 'query', description, ...(required ? { required: true } : {}), style: 'deepObject', explode: true, schema }
}
