/**
 * @module storages/sftp/knownHosts
 * OpenSSH `known_hosts` files, read the way `ssh` reads them: one `patterns keytype base64 [comment]`
 * per line, patterns comma-separated with `*`/`?` wildcards and `!` negation, `[host]:port` for a port
 * other than 22, hashed names (`|1|salt|hmac`, from `HashKnownHosts yes`), and `@revoked` markers.
 * `@cert-authority` lines are ignored (certificates are not supported).
 */
import { createHash, createHmac } from 'node:crypto'

export interface KnownKey {
  type: string
  /** The key blob, as in the file (base64). */
  key: string
  revoked: boolean
}

/** `ssh`'s fingerprint of a key blob: `SHA256:` and unpadded base64. */
export function fingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
}

/** The key type named inside a key blob (its first SSH string). */
export function keyType(blob: Buffer): string {
  if (blob.length < 4) return 'unknown'
  const length = blob.readUInt32BE(0)
  return blob.subarray(4, 4 + length).toString('latin1')
}

/** The name `known_hosts` uses for a host and port. */
export function hostEntryName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`
}

function wildcard(pattern: string, name: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  )
  return regex.test(name)
}

function hashedMatch(entry: string, name: string): boolean {
  const [, magic, salt, hash] = entry.split('|')
  if (magic !== '1' || !salt || !hash) return false
  return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash
}

/** Whether the comma-separated `patterns` of one line name `name` (a negated match wins). */
export function patternsMatch(patterns: string, name: string): boolean {
  let matched = false
  for (const pattern of patterns.split(',')) {
    if (pattern.startsWith('|')) {
      if (hashedMatch(pattern, name)) matched = true
    } else if (pattern.startsWith('!')) {
      if (wildcard(pattern.slice(1), name)) return false
    } else if (wildcard(pattern, name)) matched = true
  }
  return matched
}

/** Every key the file lists for `host`:`port`. */
export function knownKeysFor(text: string, host: string, port: number): KnownKey[] {
  const name = hostEntryName(host, port)
  const found: KnownKey[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const fields = line.split(/\s+/)
    let revoked = false
    if (fields[0]?.startsWith('@')) {
      const marker = fields.shift()
      if (marker === '@cert-authority') continue
      revoked = marker === '@revoked'
    }
    const [patterns, type, key] = fields
    if (!patterns || !type || !key) continue
    if (patternsMatch(patterns, name)) found.push({ type, key, revoked })
  }
  return found
}
