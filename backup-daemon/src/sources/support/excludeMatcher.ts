/**
 * @module sources/support/excludeMatcher
 * The original service's `excludes[]` rules for remote sources (`s3`, `host`), on an object's path
 * relative to the source's `path`: a glob matches the whole path or the file name (`*.tmp`); `dir/`
 * excludes everything under `dir`; `**` crosses folders (`**\/cache/**`); a bare name without glob
 * characters matches any folder or file of that name. Globs are picomatch's (`*` stays in a folder).
 */
import picomatch from 'picomatch'

/** Builds the predicate once for a list of patterns. */
export function excludeMatcher(patterns: string[]): (path: string) => boolean {
  const rules = patterns
    .map((p) => p.trim())
    .filter(Boolean)
    .map((pattern): ((path: string, name: string, parts: string[]) => boolean) => {
      if (pattern.endsWith('/')) {
        const dir = pattern.replace(/\/+$/, '')
        const under = picomatch(`${dir}/**`, { dot: true })
        const itself = picomatch(dir, { dot: true })
        return (path) => itself(path) || under(path) || path.startsWith(`${dir}/`)
      }
      const glob = picomatch(pattern, { dot: true })
      const bare = !/[*?[\]{}]/.test(pattern)
      return (path, name, parts) => glob(path) || glob(name) || (bare && parts.includes(pattern))
    })
  return (path) => {
    const parts = path.split('/')
    const name = parts[parts.length - 1] ?? path
    return rules.some((rule) => rule(path, name, parts))
  }
}
