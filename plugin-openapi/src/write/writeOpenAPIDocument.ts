/**
 * @module plugin-openapi/write/writeOpenAPIDocument
 * Writes the description of a Payload config file to disk (JSON or YAML, by the file extension), for codegen in CI.
 * No database connection is made: only the sanitized config is needed.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

import type { SanitizedConfig } from 'payload'
import { stringify } from 'yaml'

import { generateOpenAPIDocument } from '../generate/generateOpenAPIDocument.js'
import type { OpenAPIV3_1 } from '../openapi.js'
import { OPTIONS_KEY } from '../openapiPlugin.js'
import type { OpenAPIPluginOptions } from '../types.js'

export interface WriteOpenAPIDocumentArgs {
  /** Path of the Payload config module (its default export is `buildConfig(...)`). */
  configPath: string
  /** Output file; `.yaml`/`.yml` writes YAML, anything else JSON. */
  out: string
  /** Generator options; default: the options given to `openapiPlugin` in that config. */
  options?: OpenAPIPluginOptions
}

/** Loads the config, generates the description and writes it. Returns the document. */
export async function writeOpenAPIDocument({ configPath, out, options }: WriteOpenAPIDocumentArgs): Promise<OpenAPIV3_1.Document> {
  const mod = (await import(pathToFileURL(resolve(configPath)).href)) as { default?: SanitizedConfig | Promise<SanitizedConfig> }
  const config = await mod.default
  if (!config) throw new Error(`${configPath} has no default export (expected buildConfig(...))`)
  const fromPlugin = (config.custom as Record<string, unknown> | undefined)?.[OPTIONS_KEY] as OpenAPIPluginOptions | undefined
  const document = generateOpenAPIDocument(config, options ?? fromPlugin ?? {})
  const text = /\.ya?ml$/i.test(out) ? stringify(document, { aliasDuplicateObjects: false }) : `${JSON.stringify(document, null, 2)}\n`
  await mkdir(dirname(resolve(out)), { recursive: true })
  await writeFile(out, text)
  return document
}
