/**
 * @module cli/main
 * `backup-daemon` argument parsing and dispatch (run by `bin/backup-daemon.js`). Commands are imported
 * when chosen, so `run` never loads the HTTP server and `--help` loads almost nothing.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { usage } from './usage.js'

async function main(argv: string[]): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
    })
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage}`)
    return 2
  }
  const { values, positionals } = parsed
  if (values.help) {
    process.stdout.write(usage)
    return 0
  }
  if (values.version) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    process.stdout.write(`${pkg.version}\n`)
    return 0
  }
  const [command = 'serve', ...rest] = positionals
  const config = values.config ?? process.env.BACKUP_DAEMON_CONFIG
  const needConfig = () => {
    if (!config) process.stderr.write(`${command}: --config FILE is required\n`)
    return config
  }
  const extra = (allowed: number) => {
    if (rest.length <= allowed) return false
    process.stderr.write(`${command}: unexpected argument "${rest[allowed]}"\n`)
    return true
  }
  switch (command) {
    case 'serve': {
      const file = needConfig()
      return !file || extra(0) ? 2 : (await import('./serve.js')).serve(file)
    }
    case 'check-config': {
      const file = needConfig()
      return !file || extra(0) ? 2 : (await import('./checkConfig.js')).checkConfig(file)
    }
    case 'hash-password':
      return extra(0) ? 2 : (await import('./hashPasswordCommand.js')).hashPasswordCommand()
    case 'run': {
      const job = rest[0]
      if (!job) {
        process.stderr.write('run: which job? usage: backup-daemon run JOB --config FILE\n')
        return 2
      }
      const file = needConfig()
      return !file || extra(1) ? 2 : (await import('./runOnce.js')).runOnce(file, job)
    }
    default:
      process.stderr.write(`unknown command "${command}"\n\n${usage}`)
      return 2
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`backup-daemon: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exit(1)
  },
)
