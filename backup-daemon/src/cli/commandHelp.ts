/**
 * @module cli/commandHelp
 * `backup-daemon COMMAND --help`: what the command does, its options, and an example to copy, in the
 * way restic and git teach theirs. `commands` is also the list an unknown command is compared with.
 */

const output = `Output:
  --json                  one JSON object per line: {"type":"progress",...} (the API's RunProgress),
                          {"type":"log","time","level","message"} and at the end {"type":"summary",...}
                          (the history record: result, bytesRead, bytesWritten, durationMs, snapshot, ...)
  --quiet                 errors only
  --progress-interval S   not a terminal: a progress line every S seconds (default 30); a terminal
                          shows one live line instead
  --no-color              no ANSI colours (also NO_COLOR=1)`

const configOption = `  -c, --config FILE       the YAML config (default: $BACKUP_DAEMON_CONFIG, $SNAPR_CONFIG_FILE, ./snapr.yaml, ...)`
/** The options of the commands that read a snapshot back (verify, restore, drill). */
const readFromStorages = `  --storage NAME          only this storage of the job
  --limit-download RATE   read at most RATE from the storages (KiB/s, or with a unit: 512K, 10M)`

export const commandHelp: Record<string, string> = {
  serve: `Usage: backup-daemon [serve] --config FILE

Starts the daemon: schedules, HTTP API and web UI (with server.enabled: false, the schedules only).
SIGTERM or SIGINT stop it; runs in flight are cancelled and cleaned up.

${configOption}

Example:
  backup-daemon --config /etc/backup-daemon/backup-daemon.yaml
`,
  'check-config': `Usage: backup-daemon check-config --config FILE

Validates the config: every error as file:line:column key: message (a misspelled key names the
nearest valid one), a notice where the original service's spelling of a key is used. Exit 1 on errors.

${configOption}

Example:
  backup-daemon check-config --config /etc/backup-daemon/backup-daemon.yaml
`,
  'hash-password': `Usage: backup-daemon hash-password

Prints a password hash for server.auth.password; reads the password from stdin, or prompts for it.

Example:
  backup-daemon hash-password < password.txt
`,
  run: `Usage: backup-daemon run JOB --config FILE [output options]

Runs one job once in the foreground (e.g. from cron): its job log, and its progress (phase, bytes read
of the expected total, percent, rate, time left, the source and file being read). Exit 0 on success,
1 on failure, 130 when interrupted (the run is cancelled and its leftovers removed).

${configOption}
${output}

Examples:
  backup-daemon run site --config /etc/backup-daemon/backup-daemon.yaml
  backup-daemon run site --json | jq -c 'select(.type == "summary")'
`,
  snapshots: `Usage: backup-daemon snapshots JOB --config FILE [--storage NAME] [--json]

Lists the job's snapshots on every storage (newest first): name, creation time, size, parts, the
storages holding a copy, and whether it is checksummed (a manifest with a sha256 per part) or damaged.

${configOption}
  --storage NAME          only this storage of the job
  --json                  one snapshot per line, in the API's Snapshot shape (GET /jobs/{name}/backups)

Examples:
  backup-daemon snapshots site --config /etc/backup-daemon/backup-daemon.yaml
  backup-daemon snapshots site --storage offsite --json | jq -r .name
`,
  verify: `Usage: backup-daemon verify JOB [SNAPSHOT] --config FILE [--storage NAME] [output options]

Re-reads a snapshot (default: the newest) on every storage of the job and checks every part against
the manifest's sha256; one without a manifest is decrypted and read to its end. Exit 1 naming any bad
part or a storage without the snapshot.

${configOption}
${readFromStorages}
${output}

Examples:
  backup-daemon verify site --config /etc/backup-daemon/backup-daemon.yaml
  backup-daemon verify site site-2026-01-31T02-00-00-000Z.tar.zst --storage offsite --limit-download 10M
`,
  drill: `Usage: backup-daemon drill JOB --config FILE [--storage NAME] [output options]

A restore drill: the newest snapshot on every storage of the job is verified, restored into a scratch
folder under the data folder (<dataDir>/drills/, removed afterwards) and compared with the record the
backup wrote: every file's size and digest, and each database's checks (SQLite: integrity_check, tables
and row counts). No source's own target is touched. Exit 1 naming what differed.

${configOption}
${readFromStorages}
${output}

Examples:
  backup-daemon drill site --config /etc/backup-daemon/backup-daemon.yaml
  backup-daemon drill site --storage offsite --json
`,
  restore: `Usage: backup-daemon restore JOB SNAPSHOT --config FILE (--to DIR | --into-database [NAME]) [options]

Verifies the snapshot (the first intact copy over the job's storages), then decrypts, decompresses and
restores it. Files are unpacked beside DIR and moved into place at the end, so a failed or interrupted
restore leaves DIR as it was.

${configOption}
  --to DIR                unpack the files into DIR (entries escaping DIR are refused)
  --into-database         restore the job's database sources in place (sqlite, postgresql, mongodb,
                          mysql, mariadb, redis with a path)
  --into-database NAME    (after JOB SNAPSHOT) restore one database source into the database NAME of
                          restore.databases instead, as the web UI does; --source picks the source
  --source NAME           with --into-database or --into-library: only this source (repeatable)
  --into-library          with --to: then upload the job's video library sources from DIR into their
                          library (new videos, new ids); a summary and a log line per video
  --library-id N          with --into-library: into library N instead (same API and key)
  --guid-map FILE         with --into-library: write old id → new id per source as JSON (kept on failure)
  --force                 replace existing files / databases (sqlite file, pg --clean, mongo drop)
  --identity FILE         age identity file, for snapshots encrypted to recipients
${readFromStorages}
${output}

Examples:
  backup-daemon snapshots site          # find the name
  backup-daemon restore site site-2026-01-31T02-00-00-000Z.tar.zst --to /srv/restore/site
  backup-daemon restore site site-2026-01-31T02-00-00-000Z.tar.zst --into-database --source cms --force
  backup-daemon restore site site-2026-01-31T02-00-00-000Z.tar.zst --into-database shop_copy --source shop
  backup-daemon restore site site-2026-01-31T02-00-00-000Z.tar.zst --to /srv/restore/site --into-library --guid-map ids.json
`,
}

export const commands = Object.keys(commandHelp)

const outputOptions = ['json', 'quiet', 'no-color', 'progress-interval']
/** The options each command reads (besides --config, --help and --version, which every command takes). */
export const commandOptions: Record<string, string[]> = {
  serve: [],
  'check-config': [],
  'hash-password': [],
  run: outputOptions,
  snapshots: ['storage', 'json'],
  verify: ['storage', 'limit-download', ...outputOptions],
  drill: ['storage', 'limit-download', ...outputOptions],
  restore: ['to', 'into-database', 'into-library', 'library-id', 'guid-map', 'source', 'force', 'identity', 'storage', 'limit-download', ...outputOptions],
}

/**
 * The first option given that `command` does not read, as an error naming it and the commands that do
 * (an option silently ignored would let `run --storage offsite` look as if it did something).
 */
export function misplacedOption(command: string, given: string[]): string | undefined {
  const allowed = commandOptions[command]
  if (!allowed) return undefined
  const common = ['config', 'help', 'version', 'debug']
  const stray = given.find((option) => !common.includes(option) && !allowed.includes(option))
  if (stray === undefined) return undefined
  const owners = Object.keys(commandOptions).filter((name) => commandOptions[name]!.includes(stray))
  const where = owners.length ? ` (an option of ${owners.join(', ')})` : ''
  return `${command}: --${stray} is not an option of ${command}${where}; leave it out, see backup-daemon ${command} --help`
}
