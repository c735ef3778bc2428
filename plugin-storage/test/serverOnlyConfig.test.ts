/**
 * What the plugin adds at the top of the config stays on the server: Payload sends every top-level key
 * that is not in its `serverOnlyConfigProperties` to the admin panel's client config, and a key holding
 * functions there (Payload 4's `cli` commands, set on a 3.x core) broke the whole admin panel.
 */
import { expect } from 'chai'
import { serverOnlyConfigProperties, type Config } from 'payload'
import type { RunningEmulator } from 'dev-app/emulator'

import { storageHostPlugin } from '../src/index.js'
import { emulatorOptions, testCollections } from './support/startCms.js'

/** Plugin options are plain data here: no emulator is needed to build them. */
const emu = {
  storage: {
    accessKey: 'k',
    cdnUrl: 'http://127.0.0.1:1/cdn',
    endpoint: 'http://127.0.0.1:1/storage',
    region: '',
    s3Endpoint: 'http://127.0.0.1:1/s3',
    zoneName: 'z',
  },
  stream: {
    apiBase: 'http://127.0.0.1:1/stream',
    apiKey: 'k',
    cdnUrl: 'http://127.0.0.1:1/vz',
    libraryId: 1,
    readOnlyKey: 'r',
    tusEndpoint: 'http://127.0.0.1:1/tus',
  },
} as unknown as RunningEmulator

describe('the config keys the plugin adds are server-only on this core', () => {
  it('adds, besides the collections and the admin providers, only keys Payload keeps from the client config', () => {
    // No database: the plugin never reads it, and the config is not built.
    const before = { collections: testCollections('/nowhere'), secret: 'x' } as Config
    const after = storageHostPlugin(emulatorOptions(emu))(before)
    const added = Object.keys(after).filter((key) => !(key in before) && key !== 'admin')
    expect(added).to.include.members(['custom', 'endpoints', 'onInit'])
    expect(added.filter((key) => !(serverOnlyConfigProperties as readonly string[]).includes(key))).to.deep.equal([])
  })
})
