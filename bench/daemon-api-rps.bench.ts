/**
 * @module bench/daemon-api-rps
 * Requests per second of `GET /api/v1/jobs` (auth on, a session cookie, 20 jobs) on the real daemon
 * process, against a bare Hono server answering the same JSON, each in its own process on this machine,
 * measured in the same run by the same closed-loop load generator (keep-alive sockets, a fixed number of
 * requests in flight, fixed duration). Prints the ratio (target >= 0.6: one path for every request, issue 26;
 * the 0.85 of the old hot path in front of the app is withdrawn).
 *
 * Run: `npm run bench -- daemon-api-rps`. This file is also the bare server's entry (`bare-server`).
 */
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startChild, stopChild } from './support/child.js'
import { printResult } from './support/measure.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const concurrency = 32
const warmupMs = 1_000
/** Each server gets `rounds` slices of `sliceMs`, interleaved, so a change in the machine's load hits all alike. */
const rounds = 10
const sliceMs = 500

if (process.argv[2] === 'server-only') {
  // The daemon's HTTP server (same app, same auth) over an engine that returns the jobs from memory:
  // tells the server's own cost apart from the engine's. Like the real engine while no job changes, it
  // hands out the same frozen list every time (the server serialises a list once per change).
  // Loaded by URL so the bench project does not typecheck the daemon's sources (they have their own project).
  const serverModule = new URL('../backup-daemon/src/server/startServer.ts', import.meta.url).href
  const { startServer } = (await import(serverModule)) as {
    startServer(options: { config: unknown; engine: unknown }): Promise<{ url: string; close(): Promise<void> }>
  }
  const config = JSON.parse(process.env.BENCH_CONFIG ?? '{}') as unknown
  const { jobs } = JSON.parse(process.env.BENCH_BODY ?? '{}') as { jobs: object[] }
  const logs = { enabled: () => true, tail: () => [], subscribe: () => () => undefined, append: () => undefined }
  const list = Object.freeze(jobs.map((j) => Object.freeze({ ...j })))
  const engine = { listJobs: () => list, logs }
  const server = await startServer({ config, engine })
  console.log(`listening on ${server.url}`)
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
} else if (process.argv[2] === 'bare-server') {
  const { serve } = await import('@hono/node-server')
  const { Hono } = await import('hono')
  const body = JSON.parse(process.env.BENCH_BODY ?? '{}') as Record<string, unknown>
  const app = new Hono().get('/api/v1/jobs', (c) => c.json(body))
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => console.log(`listening on http://127.0.0.1:${info.port}`))
  process.on('SIGTERM', () => server.close(() => process.exit(0)))
} else {
  await main()
}

/** CPU time (user + system) a process has used, in seconds, from /proc (clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** A closed loop: `concurrency` requests always in flight on keep-alive sockets, for `ms`. Counts 200s. */
async function load(url: string, headers: Record<string, string>, ms: number): Promise<{ ok: number; failed: number; seconds: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  const target = new URL(url)
  let ok = 0
  let failed = 0
  const once = () =>
    new Promise<void>((resolve) => {
      const req = http.get({ agent, hostname: target.hostname, port: target.port, path: target.pathname, headers }, (res) => {
        res.on('data', () => undefined)
        res.on('end', () => {
          if (res.statusCode === 200) ok++
          else failed++
          resolve()
        })
      })
      req.on('error', () => {
        failed++
        resolve()
      })
    })
  const started = performance.now()
  const deadline = started + ms
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) await once()
    }),
  )
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return { ok, failed, seconds }
}

async function loginTo(base: string, password: string): Promise<string> {
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  })
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`)
  return login.headers.get('set-cookie')!.split(';')[0]!
}

/** The parsed-config shape for the in-memory server (the daemon process gets the same settings as YAML). */
function serverOnlyConfig(password: string) {
  return {
    dataDir: tmpdir(),
    server: {
      address: '127.0.0.1:0',
      secret: 'bench-secret-bench-secret-bench-secret',
      auth: { enabled: true, username: 'admin', password, tokenExpiration: 30, cookies: { secure: false, sameSite: 'Lax' } },
      permissions: { allowManualRun: true, allowBackupDownload: true, showConfig: true },
      ui: { enabled: true },
    },
    logs: { system: true, perJob: true, directory: tmpdir() },
    logLimits: { jobLogs: 1000, systemLogs: 1000 },
    jobs: [],
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-daemon-api-'))
  const children: ChildProcess[] = []
  try {
    mkdirSync(join(dir, 'src'))
    mkdirSync(join(dir, 'store'))
    writeFileSync(join(dir, 'src', 'file.txt'), 'data')
    const password = 'bench-password'
    const jobs = Array.from({ length: 20 }, (_, i) => ({
      name: `job-${String(i + 1).padStart(2, '0')}`,
      schedule: '0 0 1 1 *',
      sources: [{ type: 'local', name: 'files', path: join(dir, 'src') }],
      storages: [{ type: 'local', name: 'disk', path: join(dir, 'store') }],
    }))
    // JSON is YAML: the daemon reads this file as its config.
    const config = {
      dataDir: join(dir, 'data'),
      server: {
        address: '127.0.0.1:0',
        secret: 'bench-secret-bench-secret-bench-secret',
        auth: { enabled: true, username: 'admin', password },
        ui: { enabled: true },
      },
      jobs,
    }
    writeFileSync(join(dir, 'config.yaml'), JSON.stringify(config, null, 2))

    const daemon = await startChild([join(root, 'backup-daemon/bin/backup-daemon.js'), '--config', join(dir, 'config.yaml')], { cwd: root })
    children.push(daemon.child)
    const cookie = await loginTo(daemon.url, password)
    const jobsUrl = `${daemon.url}/api/v1/jobs`
    const jobsResponse = await fetch(jobsUrl, { headers: { cookie } })
    const body = await jobsResponse.text()
    if (jobsResponse.status !== 200 || (JSON.parse(body) as { jobs: unknown[] }).jobs.length !== 20) throw new Error(`unexpected /jobs answer: ${body}`)

    const bare = await startChild(['--import', 'tsx', fileURLToPath(import.meta.url), 'bare-server'], { cwd: root, env: { BENCH_BODY: body } })
    children.push(bare.child)
    const bareUrl = `${bare.url}/api/v1/jobs`
    const bareBody = await (await fetch(bareUrl)).text()
    if (bareBody !== body) throw new Error('the bare server does not answer the same JSON')

    const serverOnly = await startChild(['--import', 'tsx', fileURLToPath(import.meta.url), 'server-only'], {
      cwd: root,
      env: { BENCH_BODY: body, BENCH_CONFIG: JSON.stringify(serverOnlyConfig(password)) },
    })
    children.push(serverOnly.child)
    const serverOnlyUrl = `${serverOnly.url}/api/v1/jobs`
    const serverOnlyCookie = await loginTo(serverOnly.url, password)

    const targets: { name: string; url: string; headers: Record<string, string>; pid: number }[] = [
      { name: 'daemon process (auth on, cookie)', url: jobsUrl, headers: { cookie }, pid: daemon.child.pid! },
      { name: 'daemon server, in-memory engine', url: serverOnlyUrl, headers: { cookie: serverOnlyCookie }, pid: serverOnly.child.pid! },
      { name: 'bare Hono', url: bareUrl, headers: {}, pid: bare.child.pid! },
    ]
    console.log(`GET /api/v1/jobs, ${body.length} bytes, ${concurrency} requests in flight, ${rounds} interleaved slices of ${sliceMs / 1000} s each`)
    for (const t of targets) await load(t.url, t.headers, warmupMs)
    const totals = targets.map(() => ({ ok: 0, failed: 0, seconds: 0, cpu: 0 }))
    for (let r = 0; r < rounds; r++) {
      for (const [i, t] of targets.entries()) {
        const cpuBefore = cpuSeconds(t.pid)
        const run = await load(t.url, t.headers, sliceMs)
        totals[i]!.cpu += cpuSeconds(t.pid) - cpuBefore
        totals[i]!.ok += run.ok
        totals[i]!.failed += run.failed
        totals[i]!.seconds += run.seconds
      }
    }
    const rps = totals.map((t) => t.ok / t.seconds)
    // Requests per CPU-second of the server process: what the server costs, whatever else the shared machine runs.
    const perCpu = totals.map((t) => t.ok / Math.max(t.cpu, 0.01))
    for (const [i, t] of targets.entries()) {
      console.log(
        `${t.name.padEnd(34)} ${rps[i]!.toFixed(0).padStart(6)} req/s, ${perCpu[i]!.toFixed(0).padStart(6)} req per CPU-second (${totals[i]!.ok} ok, ${totals[i]!.failed} failed)`,
      )
    }
    if (totals.some((t) => t.failed > 0)) throw new Error('some requests failed')
    printResult('daemon GET /api/v1/jobs rps', rps[0]! / rps[2]!, 'of a bare Hono server', '>= 0.6')
    printResult('daemon GET /api/v1/jobs requests per CPU-second', perCpu[0]! / perCpu[2]!, 'of a bare Hono server')
    printResult('daemon HTTP server alone (in-memory engine) rps', rps[1]! / rps[2]!, 'of a bare Hono server')
    printResult('daemon HTTP server alone requests per CPU-second', perCpu[1]! / perCpu[2]!, 'of a bare Hono server')
  } finally {
    await Promise.all(children.map(stopChild))
    rmSync(dir, { recursive: true, force: true })
  }
}
