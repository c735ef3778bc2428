/**
 * @module auth/password
 * Password hashes for `server.auth.password`: `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`, made by
 * `backup-daemon hash-password`. A plain-text password in the config still works (compared in constant
 * time) so a first setup is easy, but the daemon warns about it.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const prefix = 'scrypt$'
const defaults = { N: 16384, r: 8, p: 1, keyLength: 32 }

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCallback(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))))
}

export function isPasswordHash(value: string): boolean {
  return value.startsWith(prefix)
}

/** Hashes a password for the config file. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const { N, r, p, keyLength } = defaults
  const key = await scrypt(password, salt, keyLength, { N, r, p })
  return `${prefix}${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`
}

/** Checks a password against a hash from `hashPassword` or, failing the prefix, a plain-text value. Constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (!isPasswordHash(stored)) {
    const given = Buffer.from(password)
    const expected = Buffer.from(stored)
    // Compare equal-length buffers so the time does not reveal the expected length's prefix match.
    return given.length === expected.length ? timingSafeEqual(given, expected) : (timingSafeEqual(expected, expected), false)
  }
  const [N, r, p, saltB64, hashB64] = stored.slice(prefix.length).split('$')
  if (!N || !r || !p || !saltB64 || !hashB64) return false
  const expected = Buffer.from(hashB64, 'base64')
  const key = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, { N: Number(N), r: Number(r), p: Number(p) })
  return timingSafeEqual(key, expected)
}
