/**
 * @module cli/commands
 * The CLI's commands; each returns the process exit code. `main.ts` parses the arguments.
 */
import { hashPassword } from '../auth/password.js'
import { ConfigError, formatIssue } from '../config/ConfigError.js'
import { loadConfig } from '../config/loadConfig.js'
import type { DaemonConfig } from '../config/types.js'
import { createEngine } from '../engine/createEngine.js'
import { EngineError } from '../engine/errors.js'
import { stripAnsi } from '../logs/formatLine.js'
import { startServer } from '../server/startServer.js'
import { readPassword } from './readPassword.js'

const colour = Boolean(process.stdout.isTTY) || Boolean(process.env.FORCE_COLOR)
const out = (line: string) => process.stdout.write((colour ? line : stripAnsi(line)) + '\n')

/** Loads the config or prints every issue; undefined means "exit 1". */
async function load(file: string): Promise<DaemonConfig | undefined> {
  try {
    return await loadConfig(file)
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    for (const issue of err.issues) process.stderr.write(formatIssue(file, issue) + '\n')
    process.stderr.write(`${err.issues.length} error(s) in ${file}\n`)
    return undefined
  }
}

export async function checkConfig(file: string): Promise<number> {
  const config = await load(file)
  if (!config) return 1
  out(`config OK: ${config.jobs.length} job(s)`)
  return 0
}

export async function hashPasswordCommand(): Promise<number> {
  const password = await readPassword('Password: ')
  if (!password) {
    process.stderr.write('empty password\n')
    return 1
  }
  out(await hashPassword(password))
  return 0
}

/** Resolves with the signal's name when SIGINT or SIGTERM arrives. */
function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on).off('SIGTERM', on)
      resolve(signal)
    }
    process.on('SIGINT', on).on('SIGTERM', on)
  })
}

export async function runOnce(file: string, job: string): Promise<number> {
  const config = await load(file)
  if (!config) return 1
  const engine = await createEngine(config, { schedule: false })
  engine.logs.subscribe({ kind: 'job', job }, out)
  try {
    engine.run(job, 'manual')
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

export async function serve(file: string): Promise<number> {
  const config = await load(file)
  if (!config) return 1
  const engine = await createEngine(config)
  let server
  try {
    server = await startServer({ config, engine })
  } catch (err) {
    await engine.stop()
    throw err
  }
  out(`backup-daemon listening on ${server.url}`)
  engine.logs.log({ kind: 'system' }, 'info', `listening on ${server.url}`)
  const signal = await nextSignal()
  engine.logs.log({ kind: 'system' }, 'info', `${signal}: shutting down`)
  // A second signal while shutting down means "now".
  void nextSignal().then(() => process.exit(1))
  await server.close()
  await engine.stop()
  return 0
}
