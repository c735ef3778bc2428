/**
 * @module cli/runOnce
 * `backup-daemon run JOB --config FILE`: one run in the foreground (for system cron), its job log on
 * stdout; exit 0 on success, 1 on failure, 130 when interrupted (the run is cancelled and cleaned up).
 */
import { createEngine } from '../engine/createEngine.js'
import { EngineError } from '../engine/errors.js'
import { load, nextSignal, out } from './output.js'

export async function runOnce(file: string, job: string): Promise<number> {
  const config = await load(file)
  if (!config) return 1
  const engine = await createEngine(config, { schedule: false })
  engine.logs.subscribe({ kind: 'job', job }, out)
  try {
    engine.run(job, 'cli')
  } catch (err) {
    await engine.stop()
    if (!(err instanceof EngineError)) throw err
    process.stderr.write(`${err.message}\n`)
    return err.name === 'JobNotFoundError' ? 2 : 1
  }
  let interrupted = false
  void nextSignal().then(async (signal) => {
    interrupted = true
    process.stderr.write(`${signal}: cancelling the run\n`)
    await engine.stop()
  })
  const info = await engine.whenIdle(job)
  await engine.stop()
  return interrupted ? 130 : info.status === 'success' ? 0 : 1
}
