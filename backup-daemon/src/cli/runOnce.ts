/**
 * @module cli/runOnce
 * `backup-daemon run JOB --config FILE`: one run in the foreground (for system cron), its job log on
 * stdout and its progress as the engine counts it (`engine.watchRuns`: the figures the web UI shows),
 * drawn live on a terminal, every `--progress-interval` seconds otherwise, as JSON with `--json`
 * (`terminal/Reporter`). Exit 0 on success, 1 on failure, 130 when interrupted (the run is cancelled
 * and cleaned up).
 */
import { createDaemon } from '../daemon/createDaemon.js'
import { EngineError } from '../runs/errors.js'
import type { RunRecord } from '../runs/history.js'
import { load, nextSignal } from './output.js'
import { unknownJob } from './snapshotCommand.js'
import type { Reporter } from './terminal/Reporter.js'

export async function runOnce(file: string, job: string, reporter: Reporter): Promise<number> {
  const config = await load(file)
  if (!config) return 1
  if (!config.jobs.some((j) => j.name === job)) {
    process.stderr.write(`${unknownJob('run', job, file, config.jobs)}\n`)
    return 2
  }
  // The whole daemon, as `serve` builds it: a restore killed mid-way is recovered, and a task of the job refuses the run.
  const { engine } = await createDaemon(config, { schedule: false })
  const unsubscribe = engine.logs.subscribe({ kind: 'job', job }, (line) => reporter.logLine(line))
  let record: RunRecord | undefined
  try {
    engine.run(job, 'cli')
  } catch (err) {
    unsubscribe()
    await engine.stop()
    if (!(err instanceof EngineError)) throw err
    // Refused before it started (busy, stopping): plain on stderr, as every usage error, whatever the output mode.
    process.stderr.write(`run: ${err.message}\n`)
    return err.name === 'JobNotFoundError' ? 2 : 1
  }
  const unwatch = engine.watchRuns(job, {
    progress: (progress) => reporter.progress(progress),
    end: (ended) => (record = ended),
  })
  let interrupted = false
  void nextSignal().then(async (signal) => {
    interrupted = true
    reporter.message('warn', `${signal}: cancelling the run`)
    await engine.stop()
  })
  const info = await engine.whenIdle(job)
  unwatch()
  unsubscribe()
  await engine.stop()
  if (record) reporter.summary(record)
  reporter.close()
  return interrupted ? 130 : info.status === 'success' ? 0 : 1
}
