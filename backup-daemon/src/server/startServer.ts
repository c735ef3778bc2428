/**
 * @module server/startServer
 * Placeholder with the final signature, so the CLI can be wired before the HTTP server lands.
 * The server work replaces the body.
 */
import type { DaemonConfig } from '../config/types.js'
import type { Engine } from '../engine/types.js'

export interface StartServerOptions {
  config: DaemonConfig
  engine: Engine
}

export interface RunningServer {
  /** Base URL the server listens on, e.g. `http://127.0.0.1:8080`. */
  url: string
  /** Stops accepting connections, ends open streams and resolves when closed. */
  close(): Promise<void>
}

export async function startServer(_options: StartServerOptions): Promise<RunningServer> {
  throw new Error('startServer: not implemented yet')
}
