/**
 * @module options/validateOptions
 * Checks the options when the Payload config is built (`storageHostPlugin(options)(config)`), so that a
 * missing or malformed value stops the start with a message naming the option and what to set, instead
 * of a `TypeError` deep inside the plugin or a failure on the first upload. The usual cause is an
 * environment variable that is not set (a `.env` file that was not loaded): the message names the
 * variable the README's example reads the option from.
 */
import type { StorageHostPluginOptions } from '../types.js'

/** One or more options are missing or malformed; `problems` lists each, in the order of the options. */
export class PluginOptionsError extends Error {
  readonly problems: string[]

  constructor(problems: string[]) {
    super(
      problems.length === 1
        ? `storage-host plugin: ${problems[0]}`
        : `storage-host plugin: ${problems.length} options need attention:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    )
    this.name = 'PluginOptionsError'
    this.problems = problems
  }
}

/** The environment variable the README's install example reads each option from. */
const readmeVariable: Record<string, string> = {
  'storage.accessKey': 'STORAGE_ACCESS_KEY',
  'storage.cdnUrl': 'STORAGE_CDN_URL',
  'storage.endpoint': 'STORAGE_ENDPOINT',
  'storage.s3Endpoint': 'STORAGE_S3_ENDPOINT',
  'storage.zoneName': 'STORAGE_ZONE',
  'stream.apiBase': 'STREAM_API_BASE',
  'stream.apiKey': 'STREAM_API_KEY',
  'stream.cdnUrl': 'STREAM_CDN_URL',
  'stream.libraryId': 'STREAM_LIBRARY_ID',
  'stream.tusEndpoint': 'STREAM_TUS_ENDPOINT',
  'stream.webhook.secret': 'STREAM_READONLY_KEY',
}

/** What to set, per option that has to be given. */
const meaning: Record<string, string> = {
  'storage.accessKey': "the storage zone's password (FTP & API access)",
  'storage.cdnUrl': "the storage zone's pull zone URL, e.g. https://my-zone.b-cdn.net",
  'storage.purge.apiKey': "the account's API key",
  'storage.tokenAuth.key': "the pull zone's token authentication key",
  'storage.zoneName': "the storage zone's name",
  'stream.apiKey': "the video library's API key",
  'stream.cdnUrl': "the video library's CDN hostname as a URL, e.g. https://vz-abc123.b-cdn.net",
  'stream.libraryId': "the video library's id (a positive whole number)",
  'stream.tokenAuth.key': "the stream pull zone's token authentication key",
  'stream.webhook.secret': "the video library's read-only API key",
}

const hint = (option: string) =>
  readmeVariable[option] ? ` (the README's example reads it from ${readmeVariable[option]}: is it set, is your .env loaded?)` : ''
const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
const show = (value: unknown) => (typeof value === 'number' && Number.isNaN(value) ? 'NaN' : JSON.stringify(value))

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

/** Collects every problem of the options (none when they are fine). */
export function findOptionProblems(options: StorageHostPluginOptions): string[] {
  const problems: string[] = []
  const required = (option: string, value: unknown) => {
    if (isBlank(value)) problems.push(`${option} is missing: set it to ${meaning[option]}${hint(option)}`)
    else if (typeof value !== 'string') problems.push(`${option} must be a string, got ${show(value)}: set it to ${meaning[option]}`)
  }
  const url = (option: string, value: unknown, isRequired = false) => {
    if (isBlank(value)) {
      if (isRequired) required(option, value)
      return
    }
    if (typeof value !== 'string' || !isHttpUrl(value)) {
      const what = meaning[option] ?? 'an http(s) URL'
      problems.push(`${option} must be an http(s) URL, got ${show(value)}: set it to ${what}${hint(option)}`)
    }
  }

  if (!options || typeof options !== 'object') return ['the options are missing: call storageHostPlugin({ collections, storage?, stream? })']
  if (!options.collections || typeof options.collections !== 'object') {
    problems.push("collections is missing: set it to the upload collections and where their files go, e.g. { media: 'storage', videos: 'stream' }")
  }

  const storage = options.storage
  if (storage) {
    required('storage.zoneName', storage.zoneName)
    required('storage.accessKey', storage.accessKey)
    url('storage.endpoint', storage.endpoint)
    url('storage.s3Endpoint', storage.s3Endpoint)
    url('storage.cdnUrl', storage.cdnUrl)
    if (storage.tokenAuth) required('storage.tokenAuth.key', storage.tokenAuth.key)
    if (storage.purge) {
      required('storage.purge.apiKey', storage.purge.apiKey)
      url('storage.purge.apiBase', storage.purge.apiBase)
    }
  }

  const stream = options.stream
  if (stream) {
    const id: unknown = stream.libraryId
    if (isBlank(id) || (typeof id === 'number' && Number.isNaN(id))) {
      problems.push(`stream.libraryId is missing: set it to ${meaning['stream.libraryId']}${hint('stream.libraryId')}`)
    } else if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0) {
      problems.push(`stream.libraryId must be a positive whole number, got ${show(id)}: set it to ${meaning['stream.libraryId']}`)
    }
    required('stream.apiKey', stream.apiKey)
    url('stream.cdnUrl', stream.cdnUrl, true)
    url('stream.apiBase', stream.apiBase)
    url('stream.tusEndpoint', stream.tusEndpoint)
    if (stream.tokenAuth) required('stream.tokenAuth.key', stream.tokenAuth.key)
    if (stream.webhook) required('stream.webhook.secret', stream.webhook.secret)
  }
  return problems
}

/** Throws a {@link PluginOptionsError} naming every missing or malformed option. */
export function validateOptions(options: StorageHostPluginOptions): void {
  const problems = findOptionProblems(options)
  if (problems.length) throw new PluginOptionsError(problems)
}
