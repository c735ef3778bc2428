/**
 * @module start/cmsInstances
 * The CMS as `npm start` serves it: one `next start` on the CMS port, or, with `CMS_INSTANCES=N` (N > 1) and a
 * database server, N of them on free loopback ports behind the round-robin proxy on the CMS port, as a site
 * that outgrew one machine runs them. Every instance has the same secret, database and emulator; what one
 * must not do twice (a receipt spent, an orphan sweep) the storage plugin claims in the database.
 */
import type { ChildProcess } from 'node:child_process'
import { startChild, waitForHttp } from './children.js'
import { cmsStartArgs } from './cmsCommand.js'
import { freePort, startRoundRobinProxy, type ProxyTarget, type RoundRobinProxy } from './roundRobinProxy.js'

/** At most this many instances: each is a Next.js server of about 300 MB. */
export const MAX_CMS_INSTANCES = 8

/** `CMS_INSTANCES` checked: a count from 1 to 8, and more than one only on a database several processes share. */
export function cmsInstanceCount(value: string | undefined, databaseType: 'sqlite' | 'postgres' | 'mongodb'): number {
  const count = value === undefined || value === '' ? 1 : Number(value)
  if (!Number.isInteger(count) || count < 1 || count > MAX_CMS_INSTANCES) {
    throw new Error(`CMS_INSTANCES must be a whole number from 1 to ${MAX_CMS_INSTANCES}, not "${value}"`)
  }
  if (count > 1 && databaseType === 'sqlite') {
    throw new Error(
      `CMS_INSTANCES=${count} needs a database server that several processes share: set DATABASE_URI=postgres://… (or mongodb://…); the SQLite file is one process's`,
    )
  }
  return count
}

export interface RunningCms {
  children: Array<{ name: string; child: ChildProcess }>
  /** The proxy in front of several instances; undefined for one. */
  proxy: RoundRobinProxy | undefined
  /** For the start's summary, e.g. ` (2 instances behind a round-robin proxy: 127.0.0.1:41234, 127.0.0.1:41240)`. */
  summary: string
  /** Resolves when the CMS port and every instance answer. */
  ready(timeoutMs: number): Promise<void>
}

export async function startCmsInstances(input: {
  count: number
  bindAddress: string
  /** Host part of a URL reaching the CMS port from this machine. */
  reachableHost: string
  port: number
  repoRoot: string
  cwd: string
  env: NodeJS.ProcessEnv
}): Promise<RunningCms> {
  const { count, repoRoot } = input
  const start = (name: string, bindAddress: string, port: number) =>
    startChild(name, process.execPath, cmsStartArgs({ bindAddress, port, repoRoot }), { cwd: input.cwd, env: { ...input.env, NODE_ENV: 'production' } })
  if (count === 1) {
    const child = start('cms', input.bindAddress, input.port)
    return {
      children: [{ child, name: 'cms' }],
      proxy: undefined,
      ready: (timeoutMs) => waitForHttp(`http://${input.reachableHost}:${input.port}/api/users/me`, timeoutMs),
      summary: '',
    }
  }
  // The instances listen on loopback only: the proxy is the one way in, whatever BIND_ADDRESS opens.
  const targets: ProxyTarget[] = []
  for (let i = 0; i < count; i++) targets.push({ host: '127.0.0.1', port: await freePort('127.0.0.1') })
  const children = targets.map((target, i) => ({ child: start(`cms-${i + 1}`, target.host, target.port), name: `cms-${i + 1}` }))
  const proxy = await startRoundRobinProxy({ host: input.bindAddress, log: (line) => console.log(`[proxy] ${line}`), port: input.port, targets })
  return {
    children,
    proxy,
    async ready(timeoutMs) {
      await Promise.all(targets.map((t) => waitForHttp(`http://${t.host}:${t.port}/api/users/me`, timeoutMs)))
    },
    summary: ` (${count} instances behind a round-robin proxy: ${targets.map((t) => `${t.host}:${t.port}`).join(', ')})`,
  }
}
