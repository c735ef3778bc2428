/** @module config Loading and validating the daemon's YAML configuration. */
export { loadConfig, parseConfig, readConfig, type LoadedConfig } from './loadConfig.js'
export { ConfigError, formatIssue, type ConfigIssue } from './ConfigError.js'
export type * from './types.js'
