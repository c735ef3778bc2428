/**
 * @module cli/main
 * `backup-daemon` argument parsing and dispatch (run by `bin/backup-daemon.js`). Commands are imported
 * when chosen, so `run` never loads the HTTP server and `--help` loads almost nothing.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { findConfigFile } from '../config/findConfigFile.js'
import { debugRequested, describeFailure } from '../startup/describeFailure.js'
import { usage } from './usage.js'

async function main(argv: string[]): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        // A failure's stack trace below its one-line summary (also DEBUG=1).
        debug: { type: 'boolean' },
        // verify / restore
        storage: { type: 'string' },
        to: { type: 'string' },
        'into-database': { type: 'boolean' },
        source: { type: 'string', multiple: true },
        identity: { type: 'string' },
        force: { type: 'boolean' },
      },
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
  // --config, $BACKUP_DAEMON_CONFIG, $SNAPR_CONFIG_FILE, then the original's search paths (config/findConfigFile.ts).
  const needConfig = () => {
    const found = findConfigFile({ flag: values.config })
    if ('error' in found) process.stderr.write(`${command}: ${found.error}\n`)
    return 'file' in found ? found.file : undefined
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
    case 'verify': {
      const job = rest[0]
      if (!job) {
        process.stderr.write('verify: which job? usage: backup-daemon verify JOB [SNAPSHOT] --config FILE\n')
        return 2
      }
      const file = needConfig()
      return !file || extra(2) ? 2 : (await import('./verifyCommand.js')).verifyCommand(file, job, rest[1], values.storage)
    }
    case 'restore': {
      const [job, snapshot] = rest
      if (!job || !snapshot) {
        process.stderr.write('restore: usage: backup-daemon restore JOB SNAPSHOT --config FILE (--to DIR | --into-database)\n')
        return 2
      }
      const file = needConfig()
      if (!file || extra(2)) return 2
      const { restoreCommand } = await import('./restoreCommand.js')
      return restoreCommand({
        file,
        job,
        snapshot,
        to: values.to,
        intoDatabase: values['into-database'] ?? false,
        sources: values.source ?? [],
        storage: values.storage,
        identity: values.identity,
        force: values.force ?? false,
      })
    }
    default:
      process.stderr.write(`unknown command "${command}"\n\n${usage}`)
      return 2
  }
}

// A command whose work stalls on a promise that never settles must not look like a success (exit 0).
let settled = false
process.once('beforeExit', () => {
  if (settled) return
  process.stderr.write('backup-daemon: the command stopped without a result (internal error)\n')
  process.exit(1)
})

main(process.argv.slice(2))
  .finally(() => (settled = true))
  .then(
    (code) => process.exit(code),
    (err: unknown) => {
      // One line naming the path and what to do; the stack only with --debug or DEBUG (startup/describeFailure.ts).
      process.stderr.write(describeFailure(err, { debug: debugRequested() }))
      process.exit(1)
    },
  )
