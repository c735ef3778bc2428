/**
 * @module options/validateOptions
 * Checks the options when the Payload config is built (`storageHostPlugin(options)(config)`), so that a
 * missing or malformed value stops the start with a message naming the option and what to set, instead
 * of a `TypeError` deep inside the plugin or a failure on the first upload. The usual cause is an
 * environment variable that is not set (a `.env` file that was not loaded): the message names the
 * variable the README's example reads the option from.
 */
import type { StorageHostPluginOptions, StorageOptions, StreamOptions, TokenAuthOptions } from '../types.js'

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
  /** `option` is where the value sits (`collections.x.zone.accessKey`), `kind` what it is (`storage.accessKey`). */
  const required = (option: string, kind: string, value: unknown) => {
    const extra = option === kind ? hint(kind) : ''
    if (isBlank(value)) problems.push(`${option} is missing: set it to ${meaning[kind]}${extra}`)
    else if (typeof value !== 'string') problems.push(`${option} must be a string, got ${show(value)}: set it to ${meaning[kind]}`)
  }
  const url = (option: string, kind: string, value: unknown, isRequired = false) => {
    if (isBlank(value)) {
      if (isRequired) required(option, kind, value)
      return
    }
    if (typeof value !== 'string' || !isHttpUrl(value)) {
      const what = meaning[kind] ?? 'an http(s) URL'
      problems.push(`${option} must be an http(s) URL, got ${show(value)}: set it to ${what}${option === kind ? hint(kind) : ''}`)
    }
  }
  /** The shape of `tokenAuth` beyond its key: a lifetime, the address switch, a header name, a folder. */
  const checkTokenAuth = (where: string, auth: TokenAuthOptions) => {
    const { addressHeader, bindToAddress, expiresIn, pathPrefix } = auth
    if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !Number.isInteger(expiresIn) || expiresIn <= 0)) {
      problems.push(`${where}.tokenAuth.expiresIn must be a positive whole number of seconds, got ${show(expiresIn)}`)
    }
    if (bindToAddress !== undefined && typeof bindToAddress !== 'boolean')
      problems.push(`${where}.tokenAuth.bindToAddress must be true or false, got ${show(bindToAddress)}`)
    if (addressHeader !== undefined && (typeof addressHeader !== 'string' || !/^[!#$%&'*+.^`|~\w-]+$/.test(addressHeader))) {
      problems.push(`${where}.tokenAuth.addressHeader must be a header name such as "x-forwarded-for" or "cf-connecting-ip", got ${show(addressHeader)}`)
    }
    if (pathPrefix !== undefined && (typeof pathPrefix !== 'string' || pathPrefix.split('/').some((part) => part === '.' || part === '..'))) {
      problems.push(`${where}.tokenAuth.pathPrefix must be a folder of the pull zone such as "images" (no "." or ".."), got ${show(pathPrefix)}`)
    }
  }
  const checkStorage = (where: string, storage: StorageOptions) => {
    const at = (name: string): [string, string] => [`${where}.${name}`, `storage.${name}`]
    required(...at('zoneName'), storage.zoneName)
    required(...at('accessKey'), storage.accessKey)
    url(...at('endpoint'), storage.endpoint)
    url(...at('s3Endpoint'), storage.s3Endpoint)
    url(...at('cdnUrl'), storage.cdnUrl)
    if (storage.tokenAuth) {
      required(...at('tokenAuth.key'), storage.tokenAuth.key)
      checkTokenAuth(where, storage.tokenAuth)
    }
    if (storage.purge) {
      required(...at('purge.apiKey'), storage.purge.apiKey)
      url(...at('purge.apiBase'), storage.purge.apiBase)
    }
  }
  const checkStream = (where: string, stream: StreamOptions) => {
    const at = (name: string): [string, string] => [`${where}.${name}`, `stream.${name}`]
    const id: unknown = stream.libraryId
    if (isBlank(id) || (typeof id === 'number' && Number.isNaN(id))) {
      problems.push(`${where}.libraryId is missing: set it to ${meaning['stream.libraryId']}${where === 'stream' ? hint('stream.libraryId') : ''}`)
    } else if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0) {
      problems.push(`${where}.libraryId must be a positive whole number, got ${show(id)}: set it to ${meaning['stream.libraryId']}`)
    }
    required(...at('apiKey'), stream.apiKey)
    url(...at('cdnUrl'), stream.cdnUrl, true)
    url(...at('apiBase'), stream.apiBase)
    url(...at('tusEndpoint'), stream.tusEndpoint)
    if (stream.tokenAuth) {
      required(...at('tokenAuth.key'), stream.tokenAuth.key)
      checkTokenAuth(where, stream.tokenAuth)
    }
    if (stream.webhook) required(...at('webhook.secret'), stream.webhook.secret)
  }

  if (!options || typeof options !== 'object') return ['the options are missing: call storageHostPlugin({ collections, storage?, stream? })']
  if (!options.collections || typeof options.collections !== 'object') {
    problems.push("collections is missing: set it to the upload collections and where their files go, e.g. { media: 'storage', videos: 'stream' }")
  }
  if (options.storage) checkStorage('storage', options.storage)
  if (options.stream) checkStream('stream', options.stream)
  for (const [slug, value] of Object.entries(options.collections ?? {})) {
    if (!value || typeof value !== 'object') continue
    if (value.zone) checkStorage(`collections.${slug}.zone`, value.zone)
    if (value.library) checkStream(`collections.${slug}.library`, value.library)
  }
  return problems
}

/** Throws a {@link PluginOptionsError} naming every missing or malformed option. */
export function validateOptions(options: StorageHostPluginOptions): void {
  const problems = findOptionProblems(options)
  if (problems.length) throw new PluginOptionsError(problems)
}
