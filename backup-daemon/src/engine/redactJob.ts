/**
 * @module engine/redactJob
 * A job's configuration as `GET /jobs/{name}/config` shows it: the original service's secret-free
 * `JobDetail` (the fields its web UI reads, in its spelling: `excludes`, `username`, `extraParams`,
 * `onSuccess`/`onFailure`, `split.chunkSize` as a `1GB`-style string) plus our own keys. Built from an
 * allowlist, never by removing secrets from a copy: a key a new source or storage type adds is left out
 * until it is listed here, so a secret cannot slip through. Secrets become flags (`hasUri`,
 * `hasPrivateKey`, `hasKnownHosts`, `hasUrl`) or a host (`urlHost`); credentials inside connection
 * strings and URLs are removed.
 */
import { redactSecrets } from '../logs/redactSecrets.js'
import type { JobConfig, NotifyConfig, SourceConfig, StorageConfig } from '../config/types.js'

/** A detail object: only strings, numbers, booleans, string arrays and string maps. */
type Detail = Record<string, string | number | boolean | string[] | Record<string, string>>

export type SourceDetail = Detail & { type: string; name: string }
export type StorageDetail = Detail & { type: string; name: string }
export type NotifierDetail = Detail & { type: string; onSuccess: boolean; onFailure: boolean }

export type JobDetail = {
  name: string
  schedule: string
  sources: SourceDetail[]
  storages: StorageDetail[]
  defaultStorage?: string
  compression: string
  retention?: { last?: number; daily?: number; weekly?: number; monthly?: number }
  hasBeforeScript: boolean
  hasAfterScript: boolean
  encryption?: { type: string; cipher?: string; hasPassphrase?: boolean; recipients?: string[] }
  notifiers: NotifierDetail[]
  split?: { chunkSize: string; chunkSizeBytes: number }
  // Ours (the original has none of these).
  active: boolean
  timezone?: string
  compressionLevel?: number
}

/**
 * Every credential form taken out (URL userinfo, `?password=`, libpq `password=`, ping URL paths): one
 * redaction for every way a source accepts a secret inside a string (`logs/redactSecrets`).
 */
export function stripCredentials(value: string): string {
  return redactSecrets(value)
}

/** The host of a URL, "" when it is not one. */
export function urlHost(value: unknown): string {
  if (typeof value !== 'string' || !value) return ''
  try {
    return new URL(value).host
  } catch {
    return ''
  }
}

/** Bytes as the original writes sizes (`1GB`, `10MB`), exact; `1500B` when no unit divides it. */
export function formatSize(bytes: number): string {
  const units = ['TB', 'GB', 'MB', 'KB']
  for (const [i, unit] of units.entries()) {
    const size = 1024 ** (units.length - i)
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`
  }
  return `${bytes}B`
}

/** Non-secret keys shown as they are (strings lose URL credentials). Our spelling → the original's. */
const sourceKeys: Record<string, string> = {
  name: 'name',
  path: 'path',
  exclude: 'excludes',
  host: 'host',
  port: 'port',
  user: 'username',
  username: 'username',
  socket: 'socket',
  database: 'database',
  tables: 'tables',
  excludeTables: 'excludeTables',
  allDatabases: 'allDatabases',
  oplog: 'oplog',
  authDatabase: 'authDatabase',
  endpoint: 'endpoint',
  zoneName: 'zoneName',
  syncPath: 'syncPath',
  bucket: 'bucket',
  region: 'region',
  usePathStyle: 'usePathStyle',
  excludeCollections: 'excludeCollections',
  gzip: 'gzip',
  pgDump: 'pgDump',
  pullZoneHostname: 'pullZoneHostname',
}
const storageKeys: Record<string, string> = {
  name: 'name',
  path: 'path',
  bucket: 'bucket',
  region: 'region',
  endpoint: 'endpoint',
  storageClass: 'storageClass',
  zoneName: 'zoneName',
  pullZoneHostname: 'pullZoneHostname',
  host: 'host',
  port: 'port',
  username: 'username',
  user: 'username',
  strictHostKey: 'strictHostKey',
  includeJobName: 'includeJobName',
  usePathStyle: 'usePathStyle',
  downloadMode: 'downloadMode',
  signedUrlTTL: 'signedUrlTTL',
  pullZoneTokenTTL: 'pullZoneTokenTTL',
  repository: 'repository',
  passwordFile: 'passwordFile',
}

function copyAllowed(entry: Record<string, unknown>, keys: Record<string, string>, out: Detail): void {
  for (const [ours, shown] of Object.entries(keys)) {
    const value = entry[ours]
    if (typeof value === 'string') out[shown] = stripCredentials(value)
    else if (typeof value === 'number' || typeof value === 'boolean') out[shown] = value
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out[shown] = value.map(stripCredentials)
  }
}

/** pg_dump-style `--key=value` / `--key` arguments as the original's `extraParams` map. */
function extraParams(params: unknown): Record<string, string> | undefined {
  if (!Array.isArray(params) || params.length === 0) return undefined
  const map: Record<string, string> = {}
  for (const param of params) {
    if (typeof param !== 'string' || !param.startsWith('--')) continue
    const [key, ...value] = param.slice(2).split('=')
    if (key) map[key] = stripCredentials(value.join('='))
  }
  return map
}

function sourceDetail(source: SourceConfig): SourceDetail {
  const entry = source as unknown as Record<string, unknown>
  const out: Detail = { type: source.type }
  copyAllowed(entry, sourceKeys, out)
  if (typeof entry.uri === 'string') out.hasUri = entry.uri !== ''
  const params = extraParams(entry.params)
  if (params) out.extraParams = params
  return out as SourceDetail
}

function storageDetail(storage: StorageConfig): StorageDetail {
  const entry = storage as unknown as Record<string, unknown>
  const out: Detail = { type: storage.type }
  copyAllowed(entry, storageKeys, out)
  if (typeof entry.privateKey === 'string') out.hasPrivateKey = entry.privateKey !== ''
  if (typeof entry.knownHosts === 'string') out.hasKnownHosts = entry.knownHosts !== ''
  // A restic repository's backend variables: their names, never their values.
  if (entry.env && typeof entry.env === 'object') out.envNames = Object.keys(entry.env)
  if (typeof entry.url === 'string') {
    out.hasUrl = entry.url !== ''
    out.urlHost = urlHost(entry.url)
  }
  return out as StorageDetail
}

function notifierDetail(entry: NotifyConfig): NotifierDetail {
  const out: NotifierDetail = {
    type: entry.type,
    onSuccess: entry.on.includes('success'),
    onFailure: entry.on.includes('failure'),
    on: [...entry.on],
    timeout: entry.timeout,
  }
  if (entry.name) out.name = entry.name
  if (entry.type === 'webhook') {
    out.urlHost = urlHost(entry.url)
    out.method = entry.method
  } else if (entry.type === 'healthchecks') {
    out.hasUrl = entry.url !== ''
    out.urlHost = urlHost(entry.url)
  } else if (entry.type === 'telegram') out.chatId = entry.chatId
  else {
    out.from = entry.from
    out.to = Array.isArray(entry.to) ? [...entry.to] : [entry.to]
    out.smtpHost = entry.smtp.host
    out.smtpPort = entry.smtp.port
  }
  return out
}

export function redactJob(job: JobConfig): JobDetail {
  const detail: JobDetail = {
    name: job.name,
    schedule: job.schedule,
    sources: job.sources.map(sourceDetail),
    storages: job.storages.map(storageDetail),
    compression: job.compression,
    hasBeforeScript: Boolean(job.beforeScript?.trim()),
    hasAfterScript: Boolean(job.afterScript?.trim()),
    notifiers: (job.notify ?? []).map(notifierDetail),
    active: job.active,
  }
  if (job.defaultStorage) detail.defaultStorage = job.defaultStorage
  if (job.retention && Object.values(job.retention).some((n) => n !== undefined)) detail.retention = { ...job.retention }
  if (job.encryption?.type === 'openssl') detail.encryption = { type: 'openssl', cipher: job.encryption.cipher }
  else if (job.encryption?.type === 'age') {
    detail.encryption = job.encryption.recipients ? { type: 'age', recipients: [...job.encryption.recipients] } : { type: 'age', hasPassphrase: true }
  }
  if (job.split) detail.split = { chunkSize: formatSize(job.split.chunkSize), chunkSizeBytes: job.split.chunkSize }
  if (job.timezone) detail.timezone = job.timezone
  if (job.compressionLevel !== undefined) detail.compressionLevel = job.compressionLevel
  return detail
}
