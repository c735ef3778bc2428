/**
 * @module plugin-openapi/operations/context
 * What an operation builder gets: the document-wide context and the scope (collection, global or root)
 * whose endpoint it documents.
 */
import type { SanitizedCollectionConfig, SanitizedConfig, SanitizedGlobalConfig } from 'payload'

import type { OpenAPIV3_1 } from '../openapi.js'
import type { SchemaRegistry } from '../schemas/schemaRegistry.js'
import type { ResolvedOptions } from '../types.js'
import { deepObjectParam, paramRef } from './parameters.js'
import type { Security, SecurityRequirement } from './security.js'

export interface BuildContext {
  config: SanitizedConfig
  options: ResolvedOptions
  registry: SchemaRegistry
  security: Security
  /** Names of the component parameters that exist (locale ones only with localization). */
  parameters: Set<string>
}

/** How summaries name an entity: its labels (`labels.singular` / `plural` of a collection, `label` of a global). */
export interface Labels {
  singular: string
  plural: string
}

export type Scope =
  | { kind: 'collection'; slug: string; name: string; tag: string; labels: Labels; collection: SanitizedCollectionConfig }
  | { kind: 'global'; slug: string; name: string; tag: string; labels: Labels; global: SanitizedGlobalConfig }
  | { kind: 'root'; slug: ''; name: ''; tag: string; labels: Labels }

/**
 * A label as text: a string as is, a per-language record in English (or its first language), a function (an
 * i18n label, `({ t }) => t('…')`) when it gives text without a translation key; otherwise the fallback.
 */
export function labelText(label: unknown, fallback: string): string {
  if (typeof label === 'string' && label) return label
  if (typeof label === 'function') {
    try {
      const text = (label as (args: unknown) => unknown)({ i18n: { language: 'en' }, t: (key: string) => key })
      if (typeof text === 'string' && text && !/^[\w-]+:\w/.test(text)) return text
    } catch {
      // an i18n label that needs more than we can give: the fallback
    }
    return fallback
  }
  if (label && typeof label === 'object') {
    const record = label as Record<string, unknown>
    const text = record.en ?? Object.values(record).find((v) => typeof v === 'string')
    if (typeof text === 'string' && text) return text
  }
  return fallback
}

/** The labels of a collection (`labels`) or a global (`label`), the slug where none is usable. */
export function labelsOf(entity: { slug: string; labels?: { singular?: unknown; plural?: unknown }; label?: unknown }): Labels {
  if ('labels' in entity && entity.labels) {
    return { singular: labelText(entity.labels.singular, entity.slug), plural: labelText(entity.labels.plural, entity.slug) }
  }
  const label = labelText(entity.label, entity.slug)
  return { singular: label, plural: label }
}

/** `a Post`, `an Image`, `an Upload`, `a User` (a `u` that sounds "you" takes `a`). */
export const withArticle = (noun: string): string => `${/^([aeio]|u(?!s|n[iy]|r|t))/i.test(noun) ? 'an' : 'a'} ${noun}`

export type Operation = OpenAPIV3_1.OperationObject

/** Operations keyed by OpenAPI path relative to the scope (`''`, `/{id}`, ...). */
export type BuiltOperations = Record<string, Operation>

/** Query parameters whose schema is the scope's own: `where`, `select`, `populate`, `joins` and their variants. */
type ScopedParam = 'joins' | 'populate' | 'select' | 'versionSelect' | 'versionWhere' | 'where' | 'whereRequired'

const scopedDescriptions: Record<ScopedParam, string> = {
  where: 'Query, e.g. `where[title][equals]=Hello` (`qs` brackets).',
  whereRequired: 'Query of the documents to change, e.g. `where[id][in][0]=1` (`qs` brackets; required).',
  versionWhere: 'Query of versions, e.g. `where[parent][equals]=1` or `where[version.title][like]=x` (`qs` brackets).',
  select: 'Fields to return (`select[title]=true`) or leave out (`select[body]=false`).',
  versionSelect: 'Fields of the version rows to return, e.g. `select[version][title]=true`.',
  populate: 'Per collection, the fields of its populated documents, e.g. `populate[images][url]=true`.',
  joins: 'Options of each join field (`limit`, `page`, `sort`, `where`, `count`), or `false` to leave it out.',
}

function scopedParam(b: BuildContext, s: Scope, name: ScopedParam): OpenAPIV3_1.ParameterObject | undefined {
  if (s.kind === 'root') return undefined
  const kind = s.kind
  const r = b.registry
  const schema =
    name === 'where' || name === 'whereRequired' || name === 'versionWhere'
      ? r.whereSchema(s.slug, kind, name === 'versionWhere')
      : name === 'select' || name === 'versionSelect'
        ? r.selectSchema(s.slug, kind, name === 'versionSelect')
        : name === 'populate'
          ? r.populateSchema()
          : kind === 'collection'
            ? r.joinsSchema(s.slug)
            : undefined
  if (!schema) return undefined
  const param = name === 'whereRequired' || name === 'versionWhere' ? 'where' : name === 'versionSelect' ? 'select' : name
  return deepObjectParam(param, schema, scopedDescriptions[name], name === 'whereRequired')
}

const scopedNames = new Set<string>(Object.keys(scopedDescriptions))

/**
 * The named query parameters of an operation in a scope: `$ref`s to the shared component parameters that exist
 * in this document (locale ones vanish without localization), and inline `where` / `select` / `populate` /
 * `joins` whose schemas are the scope's own (left out where nothing can be populated or joined).
 */
export function params(
  b: BuildContext,
  s: Scope | undefined,
  ...names: (string | false | undefined)[]
): (OpenAPIV3_1.ParameterObject | OpenAPIV3_1.ReferenceObject)[] {
  const out: (OpenAPIV3_1.ParameterObject | OpenAPIV3_1.ReferenceObject)[] = []
  for (const n of names) {
    if (typeof n !== 'string') continue
    if (scopedNames.has(n)) {
      const p = s && scopedParam(b, s, n as ScopedParam)
      if (p) out.push(p)
    } else if (b.parameters.has(n)) out.push(paramRef(n))
  }
  return out
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
