/**
 * @module config/ConfigError
 * A configuration file that cannot be used, with every problem found (not only the first) and where it is.
 */

export interface ConfigIssue {
  /** Dotted key path, e.g. `jobs[0].schedule`; "" for the document itself. */
  path: string
  /** 1-based line in the file; 0 when the problem has no place (e.g. the file cannot be read). */
  line: number
  /** 1-based column in the file; 0 when unknown. */
  column: number
  message: string
}

export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(
    readonly file: string,
    readonly issues: ConfigIssue[],
  ) {
    super(`${file}: ${issues.length} configuration error${issues.length === 1 ? '' : 's'}\n` + issues.map((i) => formatIssue(file, i)).join('\n'))
  }
}

/** `file:line:column key: message`, the format `check-config` prints. */
export function formatIssue(file: string, issue: ConfigIssue): string {
  const key = issue.path ? `${issue.path}: ` : ''
  return `${file}:${issue.line}:${issue.column} ${key}${issue.message}`
}
