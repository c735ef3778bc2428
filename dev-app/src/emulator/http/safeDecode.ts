/**
 * @module emulator/http/safeDecode
 * Percent-decoding that answers `undefined` for malformed input instead of throwing (a stray `%` in
 * a URL must get the upstream's ordinary refusal, not a 500).
 */
export function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}
