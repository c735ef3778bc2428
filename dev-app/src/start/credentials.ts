/**
 * @module start/credentials
 * The first-login credentials and secrets of one data folder, generated on first start and kept in
 * `<dataDir>/credentials.json` (mode 0600) so a second start reuses them. They include the host
 * emulator's keys: the emulator answers every local user on loopback, so fixed keys would let any of them
 * read, replace and delete the CMS's media and backups and forge the streaming host's webhooks (issue 39 #1).
 * A file an older version wrote without those keys gets them added on the next start.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** The host emulator's keys of one data folder (what `settings.ts` gives the CMS and the daemon). */
export interface HostKeys {
  /** Storage zone password: `AccessKey` of the storage API, the secret of the S3-compatible endpoint. */
  storageAccessKey: string
  /** Stream library API key: `AccessKey` of the stream API, part of the TUS upload signature. */
  streamApiKey: string
  /** The library's read-only key, which signs the encoding webhooks: the CMS's webhook secret. */
  webhookSecret: string
  /** Account API key: `AccessKey` of the purge API. */
  accountApiKey: string
  /** The documents zone's password (the second storage zone: the `documents` collection). */
  documentsAccessKey: string
  /** The private library's API key (the second video library: the `private-videos` collection). */
  privateStreamApiKey: string
  /** The private library's read-only key: its webhooks' secret. */
  privateWebhookSecret: string
}

export interface Credentials extends HostKeys {
  payloadSecret: string
  adminEmail: string
  adminPassword: string
  daemonUsername: string
  daemonPassword: string
  daemonSecret: string
}

const word = (bytes: number) => randomBytes(bytes).toString('base64url')

const fileOf = (dataDir: string) => path.join(dataDir, 'credentials.json')

function newHostKeys(): HostKeys {
  return {
    storageAccessKey: word(24),
    streamApiKey: word(24),
    webhookSecret: word(24),
    accountApiKey: word(24),
    documentsAccessKey: word(24),
    privateStreamApiKey: word(24),
    privateWebhookSecret: word(24),
  }
}

const hostKeyNames = Object.keys(newHostKeys()) as (keyof HostKeys)[]

function write(file: string, credentials: Credentials): void {
  writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 })
}

export function loadOrCreateCredentials(dataDir: string): Credentials {
  const file = fileOf(dataDir)
  if (existsSync(file)) {
    const known = JSON.parse(readFileSync(file, 'utf8')) as Partial<Credentials>
    if (hostKeyNames.every((name) => typeof known[name] === 'string' && known[name])) return known as Credentials
    // An older data folder: the emulator used fixed keys; from now on it has its own.
    const fresh = newHostKeys()
    const upgraded = { ...known } as Credentials
    for (const name of hostKeyNames) upgraded[name] ||= fresh[name]
    write(file, upgraded)
    return upgraded
  }
  const credentials: Credentials = {
    payloadSecret: word(32),
    adminEmail: 'admin@example.com',
    adminPassword: word(12),
    daemonUsername: 'admin',
    daemonPassword: word(12),
    daemonSecret: word(32),
    ...newHostKeys(),
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  write(file, credentials)
  return credentials
}

/**
 * The emulator's keys kept in `dataDir` (never created here: `npm start` creates them). Throws, saying what
 * to do, when the folder has none yet.
 */
export function readHostKeys(dataDir: string): HostKeys {
  const file = fileOf(dataDir)
  let known: Partial<HostKeys> = {}
  try {
    known = JSON.parse(readFileSync(file, 'utf8')) as Partial<HostKeys>
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const missing = hostKeyNames.filter((name) => !known[name])
  if (missing.length) {
    throw new Error(
      `${file} holds no host emulator keys (${missing.join(', ')}): \`npm start\` on this data folder generates them (or set HOST_STORAGE_ACCESS_KEY, HOST_STREAM_API_KEY, HOST_STREAM_READONLY_KEY, HOST_DOCUMENTS_ACCESS_KEY, HOST_PRIVATE_STREAM_API_KEY and HOST_PRIVATE_STREAM_READONLY_KEY)`,
    )
  }
  return known as HostKeys
}
