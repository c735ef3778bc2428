/**
 * @module plugin-openapi/test/support/fixtureDocument
 * The fixture's sanitized config and its description, generated without a database (config only).
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import type { SanitizedConfig } from 'payload'

import { generateOpenAPIDocument } from '../../src/index.js'
import type { OpenAPIV3_1 } from '../../src/openapi.js'
import type { OpenAPIPluginOptions } from '../../src/types.js'
import { buildFixtureConfig, type FixtureArgs } from '../fixture/fixtureConfig.js'

/** Building a config writes nothing (no database connection): this directory is never created. */
const UNUSED_DIR = join(tmpdir(), 'openapi-fixture-unused')

let cached: Promise<SanitizedConfig> | undefined

/** The sanitized fixture config (built once; nothing is written to its data dir). */
export function fixtureSanitized(): Promise<SanitizedConfig> {
  cached ??= buildFixtureConfig({ dataDir: UNUSED_DIR })
  return cached
}

/** A fresh sanitized config with changes (option tests). */
export function sanitizedWith(mutate: FixtureArgs['mutate'], plugin?: OpenAPIPluginOptions): Promise<SanitizedConfig> {
  return buildFixtureConfig({ dataDir: UNUSED_DIR, mutate, plugin })
}

/** The fixture's description with options. */
export async function fixtureDocument(options: OpenAPIPluginOptions = {}): Promise<OpenAPIV3_1.Document> {
  return generateOpenAPIDocument(await fixtureSanitized(), options)
}

/** `METHOD /path` of every operation. */
export function operationKeys(doc: OpenAPIV3_1.Document): string[] {
  return Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`))
}
