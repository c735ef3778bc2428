/**
 * @module cli/pluginOptions
 * The plugin's resolved options, kept in the server-only `config.custom` for its commands: Payload's CLI
 * hands a bin script the app's config, not the plugin's options.
 */
import type { Config, SanitizedConfig } from 'payload'

import type { ResolvedOptions } from '../options/resolveOptions.js'

const OPTIONS_KEY = 'storageHostOptions'

/** The config with the options kept for the commands. */
export const withKeptOptions = (config: Config, options: ResolvedOptions): Config => ({ ...config, custom: { ...config.custom, [OPTIONS_KEY]: options } })

/** The options the plugin kept; throws when the config has no storage-host plugin. */
export function optionsOf(config: Pick<SanitizedConfig, 'custom'>): ResolvedOptions {
  const options = (config.custom as Record<string, unknown> | undefined)?.[OPTIONS_KEY] as ResolvedOptions | undefined
  if (!options) throw new Error('this config has no storage-host plugin (add storageHostPlugin to plugins, or storageHostAdapter to storage)')
  return options
}
