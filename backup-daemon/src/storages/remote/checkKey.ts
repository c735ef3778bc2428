/**
 * @module storages/remote/checkKey
 * Storage keys that a remote backend accepts: relative, `/`-separated, no empty, `.` or `..` segment,
 * no backslash or NUL. Remote backends have no root folder to escape from, but a key like `a/../b`
 * would still address another object than the engine meant, so it is refused like on disk.
 */
export function checkKey(key: string): string {
  if (!key || key.includes('\\') || key.includes('\0') || key.startsWith('/') || key.split('/').some((p) => p === '..' || p === '.' || p === '')) {
    throw new Error(`invalid storage key "${key}"`)
  }
  return key
}
