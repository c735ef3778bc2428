/** @module cli/usage The `--help` text (each command's own: `backup-daemon COMMAND --help`, cli/commandHelp). */
export const usage = `Usage: backup-daemon [command] [options]

Commands:
  (none), serve           start the daemon: schedules, HTTP API and web UI (server.enabled: false: schedules only)
  check-config            validate the config; print every error as file:line:column key: message, and
                          a notice where the original's spelling of a key is used
  hash-password           print a password hash for server.auth.password (reads stdin, or prompts)
  run JOB                 run one job once in the foreground, with live progress; exit non-zero on failure
  snapshots JOB           list the job's snapshots on every storage (name, created, size, parts, storages, state)
  verify JOB [SNAPSHOT]   re-read a snapshot (default: the newest) on every storage of the job and check
                          every part against the manifest's sha256; exit 1 naming any bad part
  drill JOB               restore drill: the newest snapshot on every storage verified, restored into a
                          scratch folder and compared with what the backup recorded; exit 1 naming it
  restore JOB SNAPSHOT    verify, then decrypt, decompress and restore the snapshot:
                          --to DIR        unpack the files into DIR (entries escaping DIR are refused)
                          --into-database restore the job's database sources in place (sqlite, postgresql,
                                          mongodb, mysql, mariadb, redis with a path)
                          --into-database NAME  one source into the database NAME of restore.databases

Options:
  -c, --config FILE       the YAML config; without it: $BACKUP_DAEMON_CONFIG, $SNAPR_CONFIG_FILE, then the
                          first of ./snapr.yaml, ~/.config/snapr/snapr.yaml, ~/snapr.yaml, /etc/snapr/snapr.yaml
  -h, --help              show this help (backup-daemon COMMAND --help: the command's options and examples)
  -v, --version           print the version
  --debug                 on failure, print the stack trace below the one-line message (also DEBUG=1)
  --storage NAME          snapshots/verify/drill/restore: only this storage
  --source NAME           restore --into-database: only this source (repeatable)
  --identity FILE         restore: age identity file for snapshots encrypted to recipients
  --force                 restore: replace existing files / databases (sqlite file, pg --clean, mongo drop)
  --limit-download RATE   verify/drill/restore: at most RATE from the storages (KiB/s, or 512K, 10M)
  --json                  run/verify/restore/snapshots: one JSON object per line
  --quiet                 run/verify/restore: errors only
  --progress-interval S   run/verify/restore, not on a terminal: a progress line every S seconds (default 30)
  --no-color              no ANSI colours (also NO_COLOR=1)

Example:
  backup-daemon run site --config /etc/backup-daemon/backup-daemon.yaml

Exit codes: 0 success, 1 failure (bad config, failed run), 2 usage error, 130 interrupted.
`
