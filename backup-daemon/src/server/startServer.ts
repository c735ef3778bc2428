/**
 * @module server/startServer
 * Listens on `server.address` (`host:port`, IPv6 as `[::1]:8080`) with `@hono/node-server` and serves
 * `createApp`. `close()` ends open connections (log streams included) and resolves once the server is
 * closed; it does not stop the engine (the CLI does that).
 */
import { serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import type { DaemonConfig } from '../config/types.js'
import type { Engine } from '../engine/types.js'
import type { JobTasks } from '../tasks/createJobTasks.js'
import { createApp, type CreateAppOptions } from './createApp.js'

export interface StartServerOptions {
  config: DaemonConfig
  engine: Engine
  /** Restore and verify tasks (`daemon/createDaemon`); without them those routes answer 501. */
  tasks?: JobTasks
  /** Passed on to `createApp` (tests shorten the keep-alive interval). */
  app?: Omit<CreateAppOptions, 'config' | 'engine' | 'tasks'>
}

export interface RunningServer {
  /** Base URL the server listens on, e.g. `http://127.0.0.1:8080`. */
  url: string
  /** Stops accepting connections, ends open streams and resolves when closed. */
  close(): Promise<void>
}

/** Splits `host:port`; `[v6]:port` keeps the address without brackets; a bare `:port` means every interface. */
export function parseAddress(address: string): { hostname: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(address.trim())
  if (!match) throw new Error(`server.address must be host:port, got "${address}"`)
  return { hostname: match[1] ?? (match[2] || '0.0.0.0'), port: Number(match[3]) }
}

export async function startServer({ config, engine, tasks, app: appOptions = {} }: StartServerOptions): Promise<RunningServer> {
  const app = createApp({ ...appOptions, config, engine, tasks })
  const { hostname, port } = parseAddress(config.server.address)
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname, port }, () => resolve(s))
    s.once('error', reject)
  })
  const { port: boundPort } = server.address() as AddressInfo
  // A wildcard address is reachable on loopback; the URL is for people and tests to connect to.
  const shownHost = hostname === '0.0.0.0' ? '127.0.0.1' : hostname === '::' ? '[::1]' : hostname.includes(':') ? `[${hostname}]` : hostname
  const url = `http://${shownHost}:${boundPort}`

  let closing: Promise<void> | undefined
  return {
    url,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        // Log streams never end on their own: drop every connection so close() can finish.
        if ('closeAllConnections' in server) server.closeAllConnections()
      })
      return closing
    },
  }
}
