/**
 * @module emulator/auth/resolveInside
 * Maps a URL path (already split after its prefix) onto a folder without ever leaving it.
 */
import path from 'node:path'

/** Thrown for a path that would escape its root or is otherwise malformed (answered with 400). */
export class BadPathError extends Error {}

/**
 * Decodes each segment of `rawPath` and joins it under `root`. Refuses `..`, `.`, empty inner
 * segments, backslashes and NUL bytes *after* decoding, so `%2e%2e` and `%2f` tricks fail too.
 * Returns the absolute path and the normalised relative path (`/` separated, no leading slash).
 */
export function resolveInside(root: string, rawPath: string): { absolute: string; relative: string } {
  const segments = rawPath.split('/').filter((segment, index, all) => !(segment === '' && (index === 0 || index === all.length - 1)))
  const decoded: string[] = []
  for (const segment of segments) {
    let value: string
    try {
      value = decodeURIComponent(segment)
    } catch {
      throw new BadPathError('Malformed path encoding')
    }
    if (value === '' || value === '.' || value === '..' || /[\\/\0]/.test(value)) {
      throw new BadPathError('Invalid path')
    }
    decoded.push(value)
  }
  const relative = decoded.join('/')
  const absolute = path.resolve(root, ...decoded)
  // Belt and braces: the joined path must still be the root or below it.
  if (absolute !== path.resolve(root) && !absolute.startsWith(path.resolve(root) + path.sep)) {
    throw new BadPathError('Invalid path')
  }
  return { absolute, relative }
}
