/**
 * @module plugin-openapi/types
 * Options of the OpenAPI plugin and of the pure generator.
 */
import type { PayloadRequest } from 'payload'

import type { OpenAPIV3_1 } from './openapi.js'

/** Options of {@link openapiPlugin}; also accepted by `generateOpenAPIDocument`. */
export interface OpenAPIPluginOptions {
  /**
   * When true the plugin returns the config untouched: no endpoints are added (the same switch as the
   * storage plugin's and Payload's plugin template).
   * @default false
   */
  disabled?: boolean
  /**
   * `enabled: false` is `disabled: true`; `disabled` wins when both are given.
   * @deprecated Use `disabled`. Accepted until the next minor version.
   */
  enabled?: boolean
  /**
   * Path of the JSON description, relative to `routes.api` (so `/openapi.json` is served at `/api/openapi.json`).
   * The YAML variant is served at the same path with `.yaml` instead of `.json`. `false` serves neither.
   * @default '/openapi.json'
   */
  specRoute?: false | string
  /**
   * Path of the docs page (Swagger UI, self-hosted), relative to `routes.api`. `false` disables it.
   * @default '/docs'
   */
  docsRoute?: false | string
  /**
   * The `info` object of the description; merged over a default built from the config.
   * @default { title: 'Payload CMS REST API', version: '1.0.0' }
   */
  info?: Partial<OpenAPIV3_1.InfoObject>
  /**
   * The `servers` of the description. Paths already include `routes.api`, so a server is an origin.
   * @default [{ url: serverURL || '/' }]
   */
  servers?: OpenAPIV3_1.ServerObject[]
  /**
   * Hosts (`cms.example.com`, or `host:port`) whose requests for the description get their own origin as its
   * first server (from `X-Forwarded-Host`/`Host` and `X-Forwarded-Proto`), so "Try it out" and generated
   * clients reach the host the document was read from. A host not listed never appears in the document
   * (no Host-header injection). Ignored when `servers` is given.
   * @default []
   */
  trustedHosts?: string[]
  /**
   * Who may read the description (JSON, YAML) and the docs page with its assets; `false` answers 403. The
   * default lets anyone read them (they describe routes, never data). Gets the request (`req.user` is set).
   * @default undefined (public)
   */
  access?: (args: { req: PayloadRequest }) => boolean | Promise<boolean>
  /**
   * Document the authentication operations (me, login, logout, ..., access).
   * @default true
   */
  includeAuth?: boolean
  /**
   * Document the admin-panel side of authentication and access (`init`, `first-register`, the `access` endpoints).
   * Acts only when `includeAuth` is on.
   * @default true
   */
  includeAdminAuth?: boolean
  /**
   * Document the version endpoints (`/versions`, `/versions/{id}` and restore).
   * @default true
   */
  includeVersions?: boolean
  /**
   * Document the jobs endpoints (`run`, `handle-schedules`) when the config has tasks or workflows.
   * @default true
   */
  includeJobs?: boolean
  /**
   * Document the CRUD endpoints of Payload's own collections (slugs starting with `payload-`, e.g. preferences,
   * locked documents, migrations, jobs). Folder and tag collections are ordinary collections and stay.
   * @default false
   */
  includeSystem?: boolean
  /**
   * Operations left out, by operationId (e.g. `findPosts`) or as `METHOD /full/path` with `{param}` placeholders
   * (e.g. `DELETE /api/posts/{id}`). Works on every operation, custom ones included.
   * @default []
   */
  excludeOperations?: string[]
  /**
   * Only these collections are documented (slugs). Undefined means all.
   * @default undefined
   */
  includeCollections?: string[]
  /**
   * These collections are left out (slugs).
   * @default []
   */
  excludeCollections?: string[]
  /**
   * Only these globals are documented (slugs). Undefined means all.
   * @default undefined
   */
  includeGlobals?: string[]
  /**
   * These globals are left out (slugs).
   * @default []
   */
  excludeGlobals?: string[]
}

/** The options with their defaults applied. */
export type ResolvedOptions = Required<Omit<OpenAPIPluginOptions, 'enabled' | 'includeCollections' | 'includeGlobals' | 'servers' | 'info' | 'access'>> &
  Pick<OpenAPIPluginOptions, 'includeCollections' | 'includeGlobals' | 'servers' | 'info' | 'access'>

/** Applies the defaults documented on {@link OpenAPIPluginOptions}. */
export function resolveOptions(options: OpenAPIPluginOptions = {}): ResolvedOptions {
  const { enabled, ...rest } = options
  return {
    docsRoute: '/docs',
    excludeCollections: [],
    excludeGlobals: [],
    excludeOperations: [],
    includeAdminAuth: true,
    includeAuth: true,
    includeJobs: true,
    includeSystem: false,
    includeVersions: true,
    specRoute: '/openapi.json',
    trustedHosts: [],
    ...stripUndefined(rest),
    disabled: options.disabled ?? enabled === false,
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}

/** What a custom endpoint may carry in `custom.openapi`: an Operation Object merged over the generated default. */
export interface CustomEndpointOpenAPI extends Partial<OpenAPIV3_1.OperationObject> {
  /** Extra component schemas the operation refers to with `#/components/schemas/<name>`. */
  components?: { schemas?: Record<string, OpenAPIV3_1.SchemaObject> }
}

/**
 * What a collection or global may carry in `custom.openapi` (a plugin that adds hooks to a collection declares
 * here what those hooks answer): responses added to the generated operations of that collection or global.
 * @example
 * // a hook that refuses some uploads with 415
 * custom: { openapi: { responses: { 'POST /': { 415: { description: 'Refused file type' } }, 'PATCH /{id}': { ... } } } }
 */
export interface EntityOpenAPI {
  /**
   * By `METHOD /path` relative to the collection or global (`POST /`, `PATCH /{id}`, `GET /file/{filename}`), or
   * `*` for every operation; merged over the generated responses. A Response Object without `content` gets
   * Payload's error shape (`Error`).
   */
  responses?: Record<string, Record<string, Partial<OpenAPIV3_1.ResponseObject>>>
}
