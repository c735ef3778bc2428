/**
 * @module bench/support/servedDaemon
 * A daemon served as operators run it (`backup-daemon serve`, here on loopback without auth: the config
 * must say `server: { address: '127.0.0.1:0', auth: { enabled: false } }`), whose runs a benchmark starts
 * through `POST /api/v1/jobs/<job>/run`. A run's time is the daemon's own (`durationMs` of its history
 * record, start to end as the daemon counts it): it pays no process start and no module loading, as the
 * scheduled runs of a service do not. The history is polled every 250 ms, so that the polling costs
 * nothing while the run is measured.
 */
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startChild, stopChild } from './child.js'

const bin = fileURLToPath(new URL('../../backup-daemon/bin/backup-daemon.js', import.meta.url))

export interface ServedRun {
  id: string
  result: string
  durationMs: number
  error?: string
}

export interface ServedDaemon {
  child: ChildProcess
  /** Starts the job's run and resolves with its history record once it has ended; rejects unless it succeeded. */
  run(job: string): Promise<ServedRun>
  stop(): Promise<void>
}

export async function serveDaemon(configFile: string, options: { cwd: string; node?: string }): Promise<ServedDaemon> {
  const { child, url } = await startChild([bin, 'serve', '--config', configFile], options)
  const newestRun = async (job: string) => {
    const response = await fetch(`${url}/api/v1/jobs/${job}/history?limit=1`)
    if (response.status !== 200) throw new Error(`history: ${response.status} ${await response.text()}`)
    return ((await response.json()) as { runs: ServedRun[] }).runs[0]
  }
  return {
    child,
    async run(job) {
      const before = (await newestRun(job))?.id
      const started = await fetch(`${url}/api/v1/jobs/${job}/run`, { method: 'POST' })
      if (started.status !== 202) throw new Error(`run: ${started.status} ${await started.text()}`)
      let record = await newestRun(job)
      while (!record || record.id === before) {
        await new Promise((resolve) => setTimeout(resolve, 250))
        record = await newestRun(job)
      }
      if (record.result !== 'success') throw new Error(`served run ${record.result}: ${record.error ?? ''}`)
      return record
    },
    stop: () => stopChild(child),
  }
}
