/**
 * @module server/appEnv
 * The Hono environment of the daemon's app and the dependencies every route group receives.
 */
import type { HttpBindings } from '@hono/node-server'
import type { LoginLimits } from '../auth/loginLimits.js'
import type { SessionMiddleware } from '../auth/requireSession.js'
import type { DaemonConfig } from '../config/types.js'
import type { Engine } from '../engine/types.js'
import type { JobTasks } from '../tasks/createJobTasks.js'

/** `incoming` is there under `@hono/node-server`; in-process `app.request()` tests have no bindings. */
export interface AppEnv {
  Bindings: Partial<HttpBindings>
}

export interface RouteDeps {
  config: DaemonConfig
  engine: Engine
  /** Restore and verify of listed snapshots; without them those routes answer 501. */
  tasks?: JobTasks
  sessionKey: Uint8Array
  /** Middleware that enforces the session when auth is on. */
  session: SessionMiddleware
  /** Failed logins per address and user name, and per user name whatever the address. */
  loginLimits: LoginLimits
  /** Interval of keep-alive frames on log streams. */
  keepAliveMs: number
  startedAt: Date
  /** Calls `onEnd` when the session `request` came with is logged out or expires (never with auth off); returns the cancel. */
  untilSessionEnds(request: Request, onEnd: () => void): () => void
}
