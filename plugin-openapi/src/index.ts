/**
 * @module plugin-openapi
 * OpenAPI 3.1 description of a Payload CMS's REST API, derived from the endpoints its sanitized config mounts.
 */
export { openapiPlugin } from './openapiPlugin.js'
export { generateOpenAPIDocument, OpenAPIReferenceError } from './generate/generateOpenAPIDocument.js'
export { writeOpenAPIDocument, type WriteOpenAPIDocumentArgs } from './write/writeOpenAPIDocument.js'
export { catalog, type CatalogEntry } from './catalog/catalog.js'
export type { CustomEndpointOpenAPI, EntityOpenAPI, OpenAPIPluginOptions } from './types.js'
export type { OpenAPIV3_1 } from './openapi.js'
