/**
 * The options are checked when the config is built: the README's install example with its environment
 * variables unset (a `.env` that was not loaded) stops with an error naming each option, what to set and
 * the variable, instead of `TypeError: Cannot read properties of undefined (reading 'replace')`.
 */
import { expect } from 'chai'
import type { Config } from 'payload'

import { storageHostPlugin } from '../src/index.js'
import type { StorageHostPluginOptions } from '../src/types.js'

/** The plugin call of the README's "Install" section, reading the same variables. */
const readmeOptions = (env: Record<string, string | undefined>): StorageHostPluginOptions => ({
  collections: { media: 'storage', videos: 'stream' },
  storage: {
    zoneName: env.STORAGE_ZONE!,
    accessKey: env.STORAGE_ACCESS_KEY!,
    endpoint: env.STORAGE_ENDPOINT,
    s3Endpoint: env.STORAGE_S3_ENDPOINT,
    cdnUrl: env.STORAGE_CDN_URL!,
    clientUploads: true,
  },
  stream: {
    libraryId: Number(env.STREAM_LIBRARY_ID),
    apiKey: env.STREAM_API_KEY!,
    apiBase: env.STREAM_API_BASE,
    tusEndpoint: env.STREAM_TUS_ENDPOINT,
    cdnUrl: env.STREAM_CDN_URL!,
    tus: true,
    webhook: { secret: env.STREAM_READONLY_KEY! },
  },
})

const appConfig = (): Config =>
  ({
    collections: [
      { slug: 'media', fields: [], upload: true },
      { slug: 'videos', fields: [], upload: { mimeTypes: ['video/*'] } },
    ],
    secret: 'test-secret',
  }) as unknown as Config

/** The error the plugin throws while the config is built (fails the test when it does not throw). */
function buildError(options: StorageHostPluginOptions): Error {
  try {
    storageHostPlugin(options)(appConfig())
  } catch (error) {
    return error as Error
  }
  throw new Error('the config was built without an error')
}

const fullEnv = {
  STORAGE_ACCESS_KEY: 'zone-password',
  STORAGE_CDN_URL: 'https://my-zone.b-cdn.net',
  STORAGE_ZONE: 'my-zone',
  STREAM_API_KEY: 'library-key',
  STREAM_CDN_URL: 'https://vz-abc123.b-cdn.net',
  STREAM_LIBRARY_ID: '123',
  STREAM_READONLY_KEY: 'read-only-key',
}

describe('options are validated when the config is built', () => {
  it('the README example with no environment names every missing option, what to set and its variable', () => {
    const error = buildError(readmeOptions({}))
    expect(error.name).to.equal('PluginOptionsError')
    expect(error).not.to.be.instanceOf(TypeError)
    const expected: Array<[string, string]> = [
      ['storage.zoneName', 'STORAGE_ZONE'],
      ['storage.accessKey', 'STORAGE_ACCESS_KEY'],
      ['stream.libraryId', 'STREAM_LIBRARY_ID'],
      ['stream.apiKey', 'STREAM_API_KEY'],
      ['stream.cdnUrl', 'STREAM_CDN_URL'],
      ['stream.webhook.secret', 'STREAM_READONLY_KEY'],
    ]
    for (const [option, variable] of expected) {
      expect(error.message).to.match(new RegExp(`${option.replace(/\./g, '\\.')} is missing: set it to [^\\n]+${variable}`))
    }
    // Optional options left unset are fine: only the ones that must be given are reported.
    expect(error.message).not.to.match(/storage\.cdnUrl|storage\.endpoint|stream\.apiBase/)
  })

  it('only stream.cdnUrl unset: one line naming it (it used to crash in trimSlash)', () => {
    const error = buildError(readmeOptions({ ...fullEnv, STREAM_CDN_URL: undefined }))
    expect(error.message).to.equal(
      "storage-host plugin: stream.cdnUrl is missing: set it to the video library's CDN hostname as a URL, e.g. https://vz-abc123.b-cdn.net" +
        " (the README's example reads it from STREAM_CDN_URL: is it set, is your .env loaded?)",
    )
  })

  it('malformed values: a URL that is not one, a library id that is not a whole number', () => {
    const error = buildError(readmeOptions({ ...fullEnv, STORAGE_ENDPOINT: 'storage.bunnycdn.com', STREAM_LIBRARY_ID: '12.5' }))
    expect(error.message).to.include('storage.endpoint must be an http(s) URL, got "storage.bunnycdn.com"')
    expect(error.message).to.include('stream.libraryId must be a positive whole number, got 12.5')
  })

  it('malformed token authentication: lifetime, address switch, header name, folder', () => {
    const options = readmeOptions(fullEnv)
    const bad = {
      ...options,
      storage: { ...options.storage!, tokenAuth: { addressHeader: 'x forwarded', bindToAddress: 'yes' as unknown as boolean, key: 'k', pathPrefix: '../up' } },
      stream: { ...options.stream!, tokenAuth: { expiresIn: 0, key: 'k' } },
    }
    const error = buildError(bad)
    expect(error.message).to.include('storage.tokenAuth.bindToAddress must be true or false, got "yes"')
    expect(error.message).to.include('storage.tokenAuth.addressHeader must be a header name')
    expect(error.message).to.include('storage.tokenAuth.pathPrefix must be a folder of the pull zone')
    expect(error.message).to.include('stream.tokenAuth.expiresIn must be a positive whole number of seconds, got 0')
  })

  it('complete options build the config', () => {
    const config = storageHostPlugin(readmeOptions(fullEnv))(appConfig())
    expect(config.collections?.map((c) => c.slug)).to.include.members(['media', 'videos'])
  })
})
