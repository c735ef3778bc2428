/**
 * @module logs/escapeControl
 * Names from outside (file names in a source, object keys, archive entries) may hold any byte but `/`
 * and NUL: a newline would split a log line into a forged one ("… ERROR …"), terminal escapes (OSC,
 * cursor moves) would act on the terminal of whoever reads `backup-daemon run` or `tail -f`.
 *
 * - `escapeName` writes every control character of a name visibly (`\n`, `\r`, `\t`, `\x1b`,
 *   `\u2028`), so the name stays recognisable and on its own line. Used wherever a name is logged.
 * - `neutraliseLine` is the log hub's last guard for whole lines: the colour codes `formatLine` adds
 *   (SGR, `ESC [ … m`) are kept, a tab becomes a space (a tool's message, e.g. pg_dump quoting its query,
 *   read as `\t` otherwise, and a tab forges nothing), every other control character is escaped like a name.
 */

// C0 controls, DEL, C1 controls, the Unicode line and paragraph separators, and a name's bytes that are not
// UTF-8 (lone surrogates U+DC80..U+DCFF, `tar/byteNames`: with the `u` flag a real pair never matches).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const control = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\udc80-\udcff]/gu
// eslint-disable-next-line no-control-regex -- SGR colour sequences, kept in log lines
const controlOrColour = /\x1b\[[0-9;]*m|[\u0000-\u001f\u007f-\u009f\u2028\u2029\udc80-\udcff]/gu

const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

function escapeOne(char: string): string {
  const code = char.charCodeAt(0)
  // An escaped byte of a name that is not UTF-8 shows as that byte.
  if (code >= 0xdc80 && code <= 0xdcff) return `\\x${(code - 0xdc00).toString(16)}`
  return named[char] ?? (code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`)
}

/** `name` with every control character written as an escape (`a\nb` → `a\\nb`). */
export function escapeName(name: string): string {
  return name.replace(control, escapeOne)
}

/** One log line with its colour codes kept and every other control character escaped. */
export function neutraliseLine(line: string): string {
  return line.replace(controlOrColour, (match) => (match.length > 1 ? match : match === '\t' ? ' ' : escapeOne(match)))
}
