/**
 * @module cli/main
 * `backup-daemon` argument parsing and dispatch (run by `bin/backup-daemon.js`). Commands are imported
 * when chosen, so `run` never loads the HTTP server and `--help` loads almost nothing.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { findConfigFile } from '../config/findConfigFile.js'
import { commandHelp, commands, misplacedOption } from './commandHelp.js'
import { parseRate } from './limitReads.js'
import { outputMode, parseProgressInterval } from './terminal/outputMode.js'
import { createReporter } from './terminal/Reporter.js'
import { suggest } from './terminal/suggest.js'
import { debugRequested, describeFailure } from '../startup/describeFailure.js'
import { usage } from './usage.js'
import { usePrivateTempFolder } from '../daemon/privateTempFolder.js'

const workCommands = new Set(['serve', 'run', 'snapshots', 'verify', 'drill', 'restore'])

const options = {
  config: { type: 'string', short: 'c' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  // A failure's stack trace below its one-line summary (also DEBUG=1).
  debug: { type: 'boolean' },
  // snapshots / verify / restore
  storage: { type: 'string' },
  to: { type: 'string' },
  // In place (bare), or `--into-database NAME` of restore.databases: `optionalValue` below tells the two apart.
  'into-database': { type: 'string' },
  'into-library': { type: 'boolean' },
  'library-id': { type: 'string' },
  'guid-map': { type: 'string' },
  source: { type: 'string', multiple: true },
  identity: { type: 'string' },
  force: { type: 'boolean' },
  'limit-download': { type: 'string' },
  // output of run / verify / restore / snapshots (cli/terminal)
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  'no-color': { type: 'boolean' },
  'progress-interval': { type: 'string' },
} as const

/** A parse error as `COMMAND: what; what to do` (Node's own text names no command and no remedy). */
function describeParseError(argv: string[], err: Error & { code?: string }): string {
  const command = argv.find((a) => !a.startsWith('-')) ?? 'backup-daemon'
  const helpHint = `see backup-daemon ${commands.includes(command) ? `${command} ` : ''}--help`
  const flag = /'(-{1,2}[\w-]+)/.exec(err.message)?.[1]
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const near = suggest(flag.replace(/^-+/, ''), Object.keys(options))
    return `${command}: unknown option ${flag}${near ? `; did you mean --${near}?` : ''} (${helpHint})`
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) return `${command}: ${flag} needs a value, e.g. ${flag} NAME (${helpHint})`
  return `${command}: ${err.message} (${helpHint})`
}

/**
 * `--into-database` takes a value or none (parseArgs has no optional values): bare, it becomes
 * `--into-database=`; followed by a word that would otherwise be one positional too many (`restore JOB
 * SNAPSHOT --into-database NAME`), that word is its value.
 */
function optionalValue(argv: string[], flag: string): string[] {
  const at = argv.indexOf(flag)
  if (at === -1) return argv
  const bare = [...argv.slice(0, at), `${flag}=`, ...argv.slice(at + 1)]
  const next = argv[at + 1]
  if (next === undefined || next.startsWith('-')) return bare
  try {
    const { positionals } = parseArgs({ args: bare, allowPositionals: true, options, strict: false })
    if (positionals.length > 3 && positionals.includes(next)) return [...argv.slice(0, at), `${flag}=${next}`, ...argv.slice(at + 2)]
  } catch {
    // Reported by the real parse below.
  }
  return bare
}

async function main(argv: string[]): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({ args: optionalValue(argv, '--into-database'), allowPositionals: true, options })
  } catch (err) {
    process.stderr.write(`${describeParseError(argv, err as Error & { code?: string })}\n`)
    return 2
  }
  const { values, positionals } = parsed
  if (values.help) {
    const help = commandHelp[positionals[0] ?? '']
    process.stdout.write(help ?? usage)
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
    process.stderr.write(`${command}: unexpected argument "${rest[allowed]}"; see backup-daemon ${command} --help\n`)
    return true
  }
  const misplaced = misplacedOption(command, Object.keys(values))
  if (misplaced) {
    process.stderr.write(`${misplaced}\n`)
    return 2
  }
  // Output flags of run / verify / restore: parsed once, an error names the flag and a value to give.
  const interval = parseProgressInterval(command, values['progress-interval'])
  const limit = parseRate(command, values['limit-download'])
  for (const bad of [interval, limit]) {
    if (typeof bad === 'object') {
      process.stderr.write(`${bad.error}\n`)
      return 2
    }
  }
  const reporter = () =>
    createReporter(outputMode({ json: values.json, quiet: values.quiet, noColor: values['no-color'], progressInterval: interval as number | undefined }))
  const limitBytesPerSecond = limit as number | undefined
  // Commands that do work make temporary files: in a folder of the process's own, which the next start
  // removes if this process is killed (`daemon/privateTempFolder`).
  if (workCommands.has(command)) usePrivateTempFolder()
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
        process.stderr.write('run: which job? give its name: backup-daemon run JOB --config FILE\n')
        return 2
      }
      const file = needConfig()
      return !file || extra(1) ? 2 : (await import('./runOnce.js')).runOnce(file, job, reporter())
    }
    case 'snapshots': {
      const job = rest[0]
      if (!job) {
        process.stderr.write('snapshots: which job? give its name: backup-daemon snapshots JOB --config FILE\n')
        return 2
      }
      const file = needConfig()
      if (!file || extra(1)) return 2
      return (await import('./snapshotsCommand.js')).snapshotsCommand({ file, job, storage: values.storage, json: values.json ?? false })
    }
    case 'verify': {
      const job = rest[0]
      if (!job) {
        process.stderr.write('verify: which job? give its name: backup-daemon verify JOB [SNAPSHOT] --config FILE\n')
        return 2
      }
      const file = needConfig()
      if (!file || extra(2)) return 2
      return (await import('./verifyCommand.js')).verifyCommand(file, job, rest[1], values.storage, reporter(), { limitBytesPerSecond })
    }
    case 'drill': {
      const job = rest[0]
      if (!job) {
        process.stderr.write('drill: which job? give its name: backup-daemon drill JOB --config FILE\n')
        return 2
      }
      const file = needConfig()
      if (!file || extra(1)) return 2
      return (await import('./drillCommand.js')).drillCommand(file, job, values.storage, reporter(), { limitBytesPerSecond })
    }
    case 'restore': {
      const [job, snapshot] = rest
      if (!job || !snapshot) {
        const what = job ? 'which snapshot? give its name (list them: backup-daemon snapshots JOB)' : 'which job and snapshot?'
        process.stderr.write(`restore: ${what}: backup-daemon restore JOB SNAPSHOT --config FILE (--to DIR | --into-database)\n`)
        return 2
      }
      const file = needConfig()
      if (!file || extra(2)) return 2
      const libraryId = values['library-id'] === undefined ? undefined : Number(values['library-id'])
      if (libraryId !== undefined && !(Number.isInteger(libraryId) && libraryId > 0)) {
        process.stderr.write(`restore: --library-id takes a library's number, e.g. --library-id 1001 (not "${values['library-id']}")\n`)
        return 2
      }
      const { restoreCommand } = await import('./restoreCommand.js')
      return restoreCommand(
        {
          file,
          job,
          snapshot,
          to: values.to,
          intoDatabase: values['into-database'] === undefined ? false : values['into-database'] || true,
          intoLibrary: values['into-library'] ?? false,
          ...(libraryId !== undefined && { libraryId }),
          ...(values['guid-map'] && { guidMap: values['guid-map'] }),
          sources: values.source ?? [],
          storage: values.storage,
          identity: values.identity,
          force: values.force ?? false,
          ...(limitBytesPerSecond !== undefined && { limitBytesPerSecond }),
        },
        reporter(),
      )
    }
    default: {
      const near = suggest(command, commands)
      const hint = near ? `; did you mean \`${near}\`?` : ''
      process.stderr.write(`unknown command "${command}"${hint} (commands: ${commands.join(', ')}; see backup-daemon --help)\n`)
      return 2
    }
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
