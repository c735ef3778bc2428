/**
 * @module config/resolveEnv
 * Replaces every string value `env:NAME` with the variable's value, so secrets stay out of the file.
 * A variable that is not set is reported (naming the key, never a value).
 */

type Path = (string | number)[]

export function resolveEnv(value: unknown, env: NodeJS.ProcessEnv, report: (path: Path, message: string) => void, path: Path = []): unknown {
  if (typeof value === 'string' && value.startsWith('env:')) {
    const name = value.slice(4)
    const resolved = env[name]
    if (resolved === undefined) {
      report(path, `environment variable ${name} is not set`)
      return value
    }
    return resolved
  }
  if (Array.isArray(value)) return value.map((item, i) => resolveEnv(item, env, report, [...path, i]))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveEnv(v, env, report, [...path, k])]))
  }
  return value
}
