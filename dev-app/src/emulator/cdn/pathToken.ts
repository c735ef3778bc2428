/**
 * @module emulator/cdn/pathToken
 * The token's other place: directory tokens may be embedded as the first path segment,
 * `/bcdn_token={token}&token_path=...&expires={n}/rest/of/path` (the official library's
 * "directory" URLs, handy for HLS where relative segment URLs inherit it).
 */

const MARKER = 'bcdn_token='

/**
 * When `path` (starting with `/`) begins with an embedded token segment, returns the path without it
 * and a query holding `token`, `expires` and the other embedded parameters; else `undefined`.
 */
export function extractPathToken(path: string): { path: string; query: URLSearchParams } | undefined {
  if (!path.startsWith(`/${MARKER}`)) return undefined
  const end = path.indexOf('/', 1)
  const segment = path.slice(MARKER.length + 1, end === -1 ? undefined : end)
  const embedded = new URLSearchParams(`token=${segment}`)
  return { path: end === -1 ? '/' : path.slice(end), query: embedded }
}
