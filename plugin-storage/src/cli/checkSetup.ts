/**
 * @module cli/checkSetup
 * `payload storage-host check`: tries every zone and library the options name against the real host
 * before the first upload fails, and says in one line per check what is wrong and what to set. A zone is
 * listed, written (a small probe object), read back through its CDN hostname when it has one (signed when
 * the pull zone has token authentication), and cleaned up; a library is listed and its pull zone asked;
 * the webhook URL the host must call is asked too. Nothing else is written, and no key is ever printed.
 */
import { randomUUID } from 'node:crypto'

import { urlBinding } from '../auth/urlBinding.js'
import { UpstreamError } from '../errors.js'
import type { ResolvedOptions, ResolvedStorage, ResolvedStream } from '../options/resolveOptions.js'
import { collectionsOfLibrary, librariesOf, zonesOf } from '../options/resolveOptions.js'
import { WEBHOOK_PATH } from '../constants.js'
import { signCdnUrl } from '../upstream/signatures.js'
import { deleteObject, listDirectory, putObject } from '../upstream/storageApi.js'
import { listVideos } from '../upstream/streamApi.js'

/** One line of the report: `fail` makes the command exit 1; `warn` is worth reading but may be expected. */
export interface CheckLine {
  level: 'ok' | 'warn' | 'fail'
  subject: string
  message: string
}

export interface CheckSetupInput {
  options: ResolvedOptions
  /** The CMS's `serverURL` (where the host's callbacks must arrive), if set. */
  serverURL?: string
  /** The CMS's API route. @default '/api' */
  apiRoute?: string
  /** Bounds each request. @default 15000 */
  timeoutMs?: number
}

/** Where the probe objects go: one folder, removed with its probe. */
const PROBE_FOLDER = '.storage-host-check'

const reason = (err: unknown): string => {
  if (err instanceof UpstreamError) return err.status ? `the host answered HTTP ${err.status}` : 'the host could not be reached'
  if (err instanceof Error && err.name === 'TimeoutError') return 'no answer in time'
  return err instanceof Error ? err.message : String(err)
}

/** What a status means for a zone or library key, and what to do about it. */
function keyAdvice(status: number, what: 'zone' | 'library'): string {
  if (status === 401 || status === 403)
    return what === 'zone'
      ? 'the zone refused the access key: check zoneName and accessKey (the zone\u2019s password under FTP & API Access, not the account key)'
      : 'the library refused the API key: check libraryId and apiKey (the library\u2019s API key under API, not the read-only key)'
  if (status === 404) return what === 'zone' ? 'no such zone: check zoneName and region/endpoint' : 'no such library: check libraryId'
  return status ? `the host answered HTTP ${status}` : 'the host could not be reached: check the endpoint and the network'
}

const statusOf = (err: unknown): number => (err instanceof UpstreamError ? err.status : 0)

async function checkZone(zone: ResolvedStorage, slugs: string[], timeoutMs: number): Promise<CheckLine[]> {
  const subject = `storage zone "${zone.zoneName}" (${slugs.join(', ')})`
  const lines: CheckLine[] = []
  try {
    await listDirectory(zone, '')
  } catch (err) {
    return [{ level: 'fail', subject, message: `listing ${zone.endpoint}: ${keyAdvice(statusOf(err), 'zone')}` }]
  }
  const key = `${PROBE_FOLDER}/${randomUUID()}.txt`
  const body = Buffer.from(`storage-host check ${new Date().toISOString()}\n`)
  try {
    await putObject(zone, key, { buffer: body }, 'text/plain')
  } catch (err) {
    return [{ level: 'fail', subject, message: `writing a probe object: ${keyAdvice(statusOf(err), 'zone')} (a read-only password cannot upload)` }]
  }
  try {
    lines.push({ level: 'ok', subject, message: `listed and written through ${zone.endpoint}` })
    if (zone.cdnUrl) lines.push(await checkZoneCdn(zone, key, body, subject, timeoutMs))
    else lines.push({ level: 'warn', subject, message: 'no cdnUrl: every file is served through the CMS (serve: proxy)' })
  } finally {
    await deleteObject(zone, key).catch(() => {})
    await deleteObject(zone, PROBE_FOLDER).catch(() => {})
  }
  return lines
}

/** The probe read back through the zone's pull zone: the CDN hostname must serve this zone's files. */
async function checkZoneCdn(zone: ResolvedStorage, key: string, body: Buffer, subject: string, timeoutMs: number): Promise<CheckLine> {
  const plain = `${zone.cdnUrl}/${key.split('/').map(encodeURIComponent).join('/')}`
  const auth = zone.tokenAuth
  // An address-bound token needs a viewer's address: the check signs for none, which the pull zone then refuses.
  const url = auth && !auth.bindToAddress ? signCdnUrl(plain, urlBinding(auth, zone.cdnUrl!, plain, undefined)) : plain
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    const got = Buffer.from(await res.arrayBuffer())
    if (res.ok && got.equals(body)) return { level: 'ok', subject, message: `its CDN ${zone.cdnUrl} serves the zone\u2019s files${auth ? ' (signed)' : ''}` }
    if (res.status === 403 && auth?.bindToAddress)
      return { level: 'warn', subject, message: `its CDN ${zone.cdnUrl} answered 403 to an unbound URL, as token IP validation should` }
    if (res.status === 403 && auth)
      return {
        level: 'fail',
        subject,
        message: `its CDN ${zone.cdnUrl} refused a signed URL (403): check tokenAuth.key against the pull zone\u2019s token key`,
      }
    if (res.status === 403)
      return { level: 'fail', subject, message: `its CDN ${zone.cdnUrl} answered 403: the pull zone has token authentication on; set tokenAuth.key` }
    if (res.ok)
      return { level: 'fail', subject, message: `its CDN ${zone.cdnUrl} served other bytes than the zone holds: is cdnUrl the pull zone of this zone?` }
    return {
      level: 'fail',
      subject,
      message: `its CDN ${zone.cdnUrl} answered HTTP ${res.status} for a file the zone holds: is cdnUrl the pull zone of this zone?`,
    }
  } catch (err) {
    return { level: 'fail', subject, message: `its CDN ${zone.cdnUrl} could not be reached (${reason(err)}): check cdnUrl` }
  }
}

async function checkLibrary(library: ResolvedStream, slugs: string[], input: CheckSetupInput, timeoutMs: number): Promise<CheckLine[]> {
  const subject = `video library ${library.libraryId} (${slugs.join(', ')})`
  try {
    await listVideos(library, 1, 1)
  } catch (err) {
    return [{ level: 'fail', subject, message: `listing ${library.apiBase}: ${keyAdvice(statusOf(err), 'library')}` }]
  }
  const lines: CheckLine[] = [{ level: 'ok', subject, message: `listed through ${library.apiBase}` }]
  try {
    // Any HTTP answer proves the hostname is a pull zone that answers; a video's files need a video to exist.
    await fetch(`${library.cdnUrl}/`, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) })
    lines.push({ level: 'ok', subject, message: `its CDN ${library.cdnUrl} answers` })
  } catch (err) {
    lines.push({ level: 'fail', subject, message: `its CDN ${library.cdnUrl} could not be reached (${reason(err)}): check stream.cdnUrl` })
  }
  if (library.webhook) lines.push(await checkWebhook(subject, input, timeoutMs))
  return lines
}

/** The URL the host must call back: it needs `serverURL`, and the CMS must answer there (401 to an unsigned call). */
async function checkWebhook(subject: string, input: CheckSetupInput, timeoutMs: number): Promise<CheckLine> {
  if (!input.serverURL) {
    return {
      level: 'fail',
      subject,
      message: `serverURL is not set, so no webhook URL can be given to the host: set serverURL to the CMS\u2019s public address`,
    }
  }
  const url = `${input.serverURL.replace(/\/+$/, '')}${input.apiRoute ?? '/api'}${WEBHOOK_PATH}`
  try {
    const res = await fetch(url, { body: '{}', headers: { 'Content-Type': 'application/json' }, method: 'POST', signal: AbortSignal.timeout(timeoutMs) })
    const text = await res.text()
    // The endpoint refuses an unsigned callback ("Missing signature."): that refusal proves it is there.
    if (res.status === 401 && /signature/i.test(text))
      return { level: 'ok', subject, message: `the webhook ${url} answers (set it as the library\u2019s webhook URL)` }
    return { level: 'fail', subject, message: `the webhook ${url} answered HTTP ${res.status}, not the plugin\u2019s endpoint: check serverURL and routes.api` }
  } catch (err) {
    return {
      level: 'warn',
      subject,
      message: `the webhook ${url} does not answer from here (${reason(err)}): start the CMS and check again, or check serverURL`,
    }
  }
}

/** Runs every check; the lines in the order zones, libraries. */
export async function checkSetup(input: CheckSetupInput): Promise<CheckLine[]> {
  const { options } = input
  const timeoutMs = input.timeoutMs ?? 15_000
  const lines: CheckLine[] = []
  if (options.disabled) lines.push({ level: 'warn', subject: 'plugin', message: 'disabled: nothing reaches the host while `disabled` is set' })
  const slugsOf = (match: (c: { storage?: ResolvedStorage; stream?: ResolvedStream }) => boolean) =>
    [...options.collections.values()].filter(match).map((c) => c.slug)
  for (const zone of zonesOf(options))
    lines.push(
      ...(await checkZone(
        zone,
        slugsOf((c) => c.storage === zone),
        timeoutMs,
      )),
    )
  for (const library of librariesOf(options)) {
    lines.push(
      ...(await checkLibrary(
        library,
        collectionsOfLibrary(options, library).map((c) => c.slug),
        input,
        timeoutMs,
      )),
    )
  }
  if (lines.length === 0) lines.push({ level: 'fail', subject: 'plugin', message: 'no collection is on the host: set collections' })
  return lines
}
