/** @module cli/usage The `--help` text. */
export const usage = `Usage: backup-daemon [command] [options]

Commands:
  (none), serve           start the daemon: schedules, HTTP API and web UI (needs --config)
  check-config            validate the config; print every error as file:line:column key: message
  hash-password           print a password hash for server.auth.password (reads stdin, or prompts)
  run JOB                 run one job once in the foreground, print its log, exit non-zero on failure

Options:
  -c, --config FILE       the YAML config (default: $BACKUP_DAEMON_CONFIG)
  -h, --help              show this help
  -v, --version           print the version

Exit codes: 0 success, 1 failure (bad config, failed run), 2 usage error, 130 interrupted.
`
