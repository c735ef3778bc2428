/**
 * @module @hosted-media/backup-daemon
 * The daemon as a library: load a config, build the daemon (engine and tasks), start the HTTP server, and the contracts
 * a new source or storage type implements.
 */
export { loadConfig, parseConfig } from './config/loadConfig.js'
export { ConfigError, formatIssue, type ConfigIssue } from './config/ConfigError.js'
export type * from './config/types.js'
export { createDaemon, type Daemon, type DaemonOptions } from './daemon/createDaemon.js'
export { createEngine, type DaemonEngine, type EngineOptions } from './engine/createEngine.js'
export * from './runs/errors.js'
export type * from './engine/types.js'
export { createLogHub, type DaemonLogHub } from './engine/createLogHub.js'
export { formatLine, stripAnsi, type LogLevel } from './logs/formatLine.js'
export type { Source, SourceEntry, SourceFactory, SourceContext } from './sources/types.js'
export type { Storage, StorageFactory, StoredObject, PendingObject } from './storages/types.js'
export { sourceFactories } from './sources/all.js'
export { storageFactories } from './storages/all.js'
export type { Manifest, ManifestPart } from './repository/archives/manifest.js'
export { startServer, type RunningServer, type StartServerOptions } from './server/startServer.js'
export { hashPassword, verifyPassword } from './auth/password.js'
