/**
 * @module emulator/auth/resolveInside
 * Maps a URL path (already split after its prefix) onto a folder without ever leaving it.
 */
import path from 'node:path'

/**
 * Decodes each segment of `rawPath` and joins it under `root`. Refuses `..`, `.`, empty inner
 * segments, backslashes and NUL bytes *after* decoding, so `%2e%2e` and `%2f` tricks fail too.
 * Returns the absolute path and the normalised relative path (`/` separated, no leading slash), or
 * undefined for a path that would escape the root or is malformed (each caller answers its own 400).
 */
export function resolveInside(root: string, rawPath: string): { absolute: string; relative: string } | undefined {
  const segments = rawPath.split('/').filter((segment, index, all) => !(segment === '' && (index === 0 || index === all.length - 1)))
  const decoded: string[] = []
  for (const segment of segments) {
    let value: string
    try {
      value = decodeURIComponent(segment)
    } catch {
      return undefined
    }
    if (value === '' || value === '.' || value === '..' || /[\\/\0]/.test(value)) return undefined
    decoded.push(value)
  }
  const relative = decoded.join('/')
  const absolute = path.resolve(root, ...decoded)
  // Belt and braces: the joined path must still be the root or below it.
  if (absolute !== path.resolve(root) && !absolute.startsWith(path.resolve(root) + path.sep)) return undefined
  return { absolute, relative }
}
