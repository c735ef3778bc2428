/**
 * @module plugin-openapi/operations/context
 * What an operation builder gets: the document-wide context and the scope (collection, global or root)
 * whose endpoint it documents.
 */
import type { SanitizedCollectionConfig, SanitizedConfig, SanitizedGlobalConfig } from 'payload'

import type { OpenAPIV3_1 } from '../openapi.js'
import type { SchemaRegistry } from '../schemas/schemaRegistry.js'
import type { ResolvedOptions } from '../types.js'
import { paramRef } from './parameters.js'
import type { Security, SecurityRequirement } from './security.js'

export interface BuildContext {
  config: SanitizedConfig
  options: ResolvedOptions
  registry: SchemaRegistry
  security: Security
  /** Names of the component parameters that exist (locale ones only with localization). */
  parameters: Set<string>
}

export type Scope =
  | { kind: 'collection'; slug: string; name: string; tag: string; collection: SanitizedCollectionConfig }
  | { kind: 'global'; slug: string; name: string; tag: string; global: SanitizedGlobalConfig }
  | { kind: 'root'; slug: ''; name: ''; tag: string }

export type Operation = OpenAPIV3_1.OperationObject

/** Operations keyed by OpenAPI path relative to the scope (`''`, `/{id}`, ...). */
export type BuiltOperations = Record<string, Operation>

/** `$ref`s to the named parameters that exist in this document (locale ones vanish without localization). */
export function params(b: BuildContext, ...names: (string | false | undefined)[]): OpenAPIV3_1.ReferenceObject[] {
  return names.filter((n): n is string => typeof n === 'string' && b.parameters.has(n)).map(paramRef)
}

/** A path parameter. */
export function pathParam(name: string, schema: OpenAPIV3_1.SchemaObject, description?: string): OpenAPIV3_1.ParameterObject {
  return { name, in: 'path', required: true, schema, ...(description ? { description } : {}) }
}

/** Assembles an operation, dropping empty members. */
export function operation(o: {
  id: string
  summary: string
  tag: string
  parameters?: Operation['parameters']
  requestBody?: Operation['requestBody']
  responses: Operation['responses']
  security: SecurityRequirement[]
  description?: string
}): Operation {
  const out: Operation = { operationId: o.id, summary: o.summary, tags: [o.tag], responses: o.responses, security: o.security }
  if (o.description) out.description = o.description
  if (o.parameters && o.parameters.length > 0) out.parameters = o.parameters
  if (o.requestBody) out.requestBody = o.requestBody
  return out
}

/** Versions config of a collection or global, if any. */
export function draftsOf(entity: { versions?: unknown }): { autosave?: unknown; localizeStatus?: unknown } | undefined {
  const v = entity.versions
  if (!v || typeof v !== 'object') return undefined
  const d = (v as { drafts?: unknown }).drafts
  return d ? (typeof d === 'object' ? (d as { autosave?: unknown; localizeStatus?: unknown }) : {}) : undefined
}
