/**
 * @module sources/support/excludeMatcher
 * The `local` source's `exclude` (the original's `excludes`) patterns, with the original service's
 * forms (listed below), tested against a path relative to the source folder (`/`-separated). The
 * walker skips a matching folder whole, so matching the folder is enough for what is below it.
 */
// - a glob (`*.tmp`, `logs/*.log`) matches the relative path or the file name alone (`*` stays within
//   one folder);
// - `dir/` (a trailing slash) matches that folder and everything under it;
// - a pattern with `**` (`**/cache/**`, `**/*.bak`) matches across folders, on the path or the name;
// - a bare name (`node_modules`, `.git`) matches a file or folder of that name at any depth.
import picomatch from 'picomatch'

const globChars = /[*?[\]{}()!+@]/

export function excludeMatcher(patterns: string[]): (relativePath: string) => boolean {
  const tests: ((path: string, name: string) => boolean)[] = []
  for (const raw of patterns) {
    const pattern = raw.trim().replace(/\\/g, '/').replace(/^\.\//, '')
    if (!pattern) continue
    const options = { dot: true }
    if (pattern.endsWith('/')) {
      const folder = pattern.replace(/\/+$/, '')
      if (!folder) continue
      const match = picomatch([folder, `${folder}/**`], options)
      tests.push((path) => match(path))
    } else if (pattern.includes('**') || globChars.test(pattern)) {
      const match = picomatch(pattern, options)
      tests.push((path, name) => match(path) || match(name))
    } else {
      // A plain name or path: the path itself, or any folder/file of that name (a name without `/`).
      const plain = pattern
      const single = !plain.includes('/')
      tests.push((path) => path === plain || path.startsWith(`${plain}/`) || (single && path.split('/').includes(plain)))
    }
  }
  return (relativePath) => {
    const path = relativePath.replace(/\\/g, '/')
    const name = path.slice(path.lastIndexOf('/') + 1)
    return tests.some((test) => test(path, name))
  }
}
