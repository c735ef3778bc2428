/**
 * @module cli/serve
 * `backup-daemon --config FILE`: the daemon (`daemon/createDaemon`: engine and tasks) and HTTP server (none
 * with `server.enabled: false`) until SIGTERM/SIGINT, then the server closes, the engine cancels runs and
 * tasks in flight and cleans up, and the process exits 0. The system log goes to stdout (warnings and
 * errors to stderr) as `logs/consoleLine` shapes it for the journal, a terminal or a pipe.
 */
import { isPasswordHash } from '../auth/password.js'
import { createDaemon } from '../daemon/createDaemon.js'
import { startServer } from '../server/startServer.js'
import { formatIssue } from '../config/ConfigError.js'
import { consoleLine, consoleTarget } from '../logs/consoleLine.js'
import { loadWithNotices, nextSignal, out } from './output.js'

export async function serve(file: string): Promise<number> {
  const loaded = await loadWithNotices(file)
  if (!loaded) return 1
  const { config } = loaded
  // The system log (start-up, every run's and task's start and end, failures with their cause,
  // internal errors) on stdout/stderr, which systemd gives to the journal.
  const target = consoleTarget()
  const daemon = await createDaemon(config, {
    onSystemLine: (line) => {
      const { text, problem } = consoleLine(line, target)
      ;(problem ? process.stderr : process.stdout).write(text + '\n')
    },
  })
  const { engine } = daemon
  // The original's spellings are fine; say once per start which ones we prefer (check-config prints them too).
  // A WARNING notice (config/publicZoneWarnings.ts: snapshots in a public zone) is logged as a warning.
  for (const notice of loaded.notices)
    engine.logs.log({ kind: 'system' }, notice.message.startsWith('WARNING') ? 'warn' : 'info', `config notice: ${formatIssue(file, notice)}`)
  if (config.server.auth.enabled && !isPasswordHash(config.server.auth.password)) {
    engine.logs.log({ kind: 'system' }, 'warn', 'server.auth.password is plain text; store a hash from `backup-daemon hash-password`')
  }
  // Listening for SIGTERM/SIGINT before saying the daemon runs: a supervisor (or a test) that signals as soon
  // as it reads the line must get a clean shutdown, not Node's default death by signal.
  const stopSignal = nextSignal()
  // `server.enabled: false` (the original's scheduler-only mode): schedules and logs, no listener.
  let server
  let keepAlive: NodeJS.Timeout | undefined
  if (config.server.enabled !== false) {
    try {
      server = await startServer({ config, engine, tasks: daemon.tasks })
    } catch (err) {
      await daemon.stop()
      throw err
    }
    out(`backup-daemon listening on ${server.url}`)
    engine.logs.log({ kind: 'system' }, 'info', `listening on ${server.url}`)
  } else {
    // Without a listener nothing else keeps the process alive (croner's timers are unref'd).
    keepAlive = setInterval(() => undefined, 1 << 30)
    out('backup-daemon running the schedules only (server.enabled: false, no HTTP listener)')
    engine.logs.log({ kind: 'system' }, 'info', 'HTTP server disabled (server.enabled: false): running the schedules only')
  }
  const signal = await stopSignal
  engine.logs.log({ kind: 'system' }, 'info', `${signal}: shutting down`)
  // A second signal while shutting down means "now".
  void nextSignal().then(() => process.exit(1))
  await server?.close()
  clearInterval(keepAlive)
  await daemon.stop()
  return 0
}
