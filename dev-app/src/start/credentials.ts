/**
 * @module start/credentials
 * The first-login credentials and secrets of one data folder, generated on first start and kept in
 * `<dataDir>/credentials.json` (mode 0600) so a second start reuses them.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

export interface Credentials {
  payloadSecret: string
  adminEmail: string
  adminPassword: string
  daemonUsername: string
  daemonPassword: string
  daemonSecret: string
}

const word = (bytes: number) => randomBytes(bytes).toString('base64url')

export function loadOrCreateCredentials(dataDir: string): Credentials {
  const file = path.join(dataDir, 'credentials.json')
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Credentials
  const credentials: Credentials = {
    payloadSecret: word(32),
    adminEmail: 'admin@example.com',
    adminPassword: word(12),
    daemonUsername: 'admin',
    daemonPassword: word(12),
    daemonSecret: word(32),
  }
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 })
  return credentials
}
