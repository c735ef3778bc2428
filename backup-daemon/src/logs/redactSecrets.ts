/**
 * @module logs/redactSecrets
 * One redaction for every string the daemon shows or logs that may hold a credential: a job's config in
 * `GET /jobs/{name}/config`, and every line that goes to a job log, the system log and `GET /logs`.
 *
 * What it removes, in every form a source or notifier accepts:
 * - URL userinfo: `scheme://user:secret@host` becomes `scheme://host` (the user name goes too: with a
 *   password-less token URL the "user" is the secret);
 * - secret query parameters: `?password=`, `?sslpassword=`, `?token=`, `?access_token=`, `?api_key=`,
 *   `?apikey=`, `?secret=`, `?key=` (removed with their value);
 * - libpq key/value pairs: `password=…` and `sslpassword=…`, quoted or not;
 * - the path of a healthchecks.io-style ping URL: the check's UUID (or ping key and slug) is its secret,
 *   so `https://hc-ping.com/<uuid>/fail` becomes `https://hc-ping.com/…`.
 */

const secretParams = new Set(['password', 'sslpassword', 'passwd', 'pwd', 'token', 'access_token', 'api_key', 'apikey', 'secret', 'key'])

/** `scheme://` then the authority's userinfo: everything up to the last `@` before the path, query or fragment. */
const userinfo = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi
/** A query string (after `?`), up to whitespace or a fragment. */
const query = /\?([^\s#]*)/g
/** libpq `password=value` / `password = 'quoted \' value'`, at the start or after whitespace. */
const keyValuePassword = /(^|\s)(?:ssl)?password\s*=\s*(?:'(?:[^'\\]|\\.)*'?|(?:[^\s'\\]|\\.)*)\s*/gi
/** A URL whose path is a ping secret: healthchecks' hosted service, or any `/ping/` path of a self-hosted one. */
const pingUrl = /\b(https?:\/\/)(hc-ping\.com|[^/\s?#]+(?=\/ping\/))(\/ping)?\/[^\s?#"')]*/gi

function redactQuery(_match: string, params: string): string {
  const kept = params.split('&').filter((pair) => {
    const key = pair.split('=')[0] ?? ''
    let name = key
    try {
      name = decodeURIComponent(key)
    } catch {
      // A malformed escape: judge the raw text.
    }
    return !secretParams.has(name.toLowerCase())
  })
  return kept.length ? `?${kept.join('&')}` : ''
}

/** `value` with every credential form above taken out; text without any is returned unchanged. */
export function redactSecrets(value: string): string {
  if (!value) return value
  let out = value.replace(userinfo, '$1')
  if (out.includes('?')) out = out.replace(query, redactQuery)
  if (/password/i.test(out)) out = out.replace(keyValuePassword, '$1')
  return out.replace(pingUrl, (_m, scheme: string, host: string, ping: string | undefined) => `${scheme}${host}${ping ?? ''}/…`)
}
