/**
 * @module engine/redactJob
 * A job's configuration as `GET /jobs/{name}/config` shows it: every secret replaced by "[redacted]".
 * Secret keys are those each source/storage type declares, plus any key whose name says it is one,
 * and credentials inside connection URLs.
 */
import type { JobConfig, NotifyConfig } from '../config/types.js'
import { sourceFactory } from '../sources/all.js'
import { storageFactory } from '../storages/all.js'

export const redacted = '[redacted]'
const secretName = /pass(word)?|secret|token|(access|auth|api)[-_]?key|credential/i

function redactEntry(entry: Record<string, unknown>, declared: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(entry)) {
    if ((declared.includes(key) || secretName.test(key)) && value !== undefined && value !== '') out[key] = redacted
    else if (typeof value === 'string') out[key] = value.replace(/(\/\/[^/:@\s]+:)[^@/\s]+@/, `$1${redacted}@`)
    else if (value && typeof value === 'object' && !Array.isArray(value)) out[key] = redactEntry(value as Record<string, unknown>, [])
    else out[key] = value
  }
  return out
}

/** A webhook URL's path and query often are the secret (chat services): only the origin is shown. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return parsed.pathname === '/' && !parsed.search ? parsed.origin : `${parsed.origin}/${redacted}`
  } catch {
    return redacted
  }
}

function redactNotify(entry: NotifyConfig): Record<string, unknown> {
  if (entry.type === 'webhook') {
    // Header values are credentials as often as not (Authorization, X-Api-Key, ...): none is shown.
    const headers = Object.fromEntries(Object.keys(entry.headers).map((name) => [name, redacted]))
    return { ...entry, url: redactUrl(entry.url), headers }
  }
  return redactEntry({ ...entry, smtp: { ...entry.smtp } } as unknown as Record<string, unknown>, [])
}

export function redactJob(job: JobConfig): Record<string, unknown> {
  const copy = redactEntry(structuredClone(job) as unknown as Record<string, unknown>, [])
  if (job.encryption) copy.encryption = redactEntry({ ...job.encryption }, ['passphrase'])
  copy.notify = (job.notify ?? []).map(redactNotify)
  copy.sources = job.sources.map((s) => redactEntry({ ...s }, sourceFactory(s.type)?.secretKeys ?? []))
  copy.storages = job.storages.map((s) => redactEntry({ ...s }, storageFactory(s.type)?.secretKeys ?? []))
  return copy
}
