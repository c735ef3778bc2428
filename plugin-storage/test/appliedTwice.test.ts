/**
 * The plugin applied twice (twice in `plugins`, or inside a preset that already has it) is a no-op the
 * second time: after `buildConfig` (Payload's sanitizer included) every collection has as many hooks and
 * endpoints, the root as many endpoints and admin providers, and `onInit` starts as many sweep timers as
 * with the plugin applied once.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { sqliteAdapter } from '@payloadcms/db-sqlite'
import { expect } from 'chai'
import { buildConfig, type Payload, type SanitizedConfig } from 'payload'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import { storageHostPlugin } from '../src/index.js'
import { emulatorOptions, testCollections } from './support/startCms.js'

interface Counts {
  hooks: Record<string, Record<string, number>>
  collectionEndpoints: Record<string, number>
  endpoints: number
  providers: number
  timers: number
  /** operationId of `GET /:id/playback` on `videos`. */
  playback?: string
}

describe('the plugin applied twice', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let dir: string

  before(async () => {
    emu = await startEmulator()
    dir = await mkdtemp(join(tmpdir(), 'plugin-storage-twice-'))
  })
  after(async () => {
    await emu?.close()
    await rm(dir, { force: true, recursive: true })
  })

  /** Builds a config with the plugin applied `times` times (every option that installs something on). */
  async function countsFor(times: number): Promise<Counts> {
    const base = emulatorOptions(emu)
    const plugin = storageHostPlugin({
      ...base,
      storage: { ...base.storage!, clientUploads: { sweepInterval: 3600 }, purge: { apiBase: emu.account.apiBase, apiKey: emu.account.apiKey } },
      stream: { ...base.stream!, sweepUnboundVideos: { interval: 3600 } },
    })
    const config: SanitizedConfig = await buildConfig({
      collections: testCollections(dir),
      db: sqliteAdapter({ client: { url: `file:${join(dir, `twice-${times}.db`)}` } }),
      plugins: Array.from({ length: times }, () => plugin),
      secret: 'twice-secret',
      telemetry: false,
      typescript: { autoGenerate: false },
    })
    const hooks: Counts['hooks'] = {}
    const collectionEndpoints: Counts['collectionEndpoints'] = {}
    for (const c of config.collections) {
      hooks[c.slug] = Object.fromEntries(Object.entries(c.hooks ?? {}).map(([name, list]) => [name, Array.isArray(list) ? list.length : 0]))
      collectionEndpoints[c.slug] = Array.isArray(c.endpoints) ? c.endpoints.length : 0
    }
    // onInit: count the sweep timers it starts (then stop them).
    const started: NodeJS.Timeout[] = []
    const realSetInterval = globalThis.setInterval
    globalThis.setInterval = ((...args: Parameters<typeof setInterval>) => {
      const timer = realSetInterval(...args)
      started.push(timer)
      return timer
    }) as typeof setInterval
    try {
      await config.onInit?.({ logger: { warn: () => undefined } } as unknown as Payload)
    } finally {
      globalThis.setInterval = realSetInterval
      for (const timer of started) clearInterval(timer)
    }
    const videos = config.collections.find((c) => c.slug === 'videos')
    const playback = (Array.isArray(videos?.endpoints) ? videos.endpoints : []).find((e) => e.path === '/:id/playback' && e.method === 'get')
    return {
      collectionEndpoints,
      playback: (playback?.custom as { openapi?: { operationId?: string } } | undefined)?.openapi?.operationId,
      endpoints: config.endpoints.length,
      hooks,
      providers: config.admin.components.providers?.length ?? 0,
      timers: started.length,
    }
  }

  it('has the same hooks, endpoints, providers and onInit work as the plugin applied once', async () => {
    const once = await countsFor(1)
    // The test would not notice doubling if nothing were installed: check what "once" holds.
    expect(once.hooks.media!.afterChange).to.be.greaterThan(0)
    expect(once.hooks.videos!.beforeChange).to.be.greaterThan(0)
    expect(once.providers).to.be.greaterThan(0)
    // The zone's and the library's orphan sweeps, and the removal of expired claims.
    expect(once.timers).to.equal(3)
    expect(once.collectionEndpoints.videos).to.be.greaterThan(once.collectionEndpoints.posts!)
    expect(await countsFor(2)).to.deep.equal(once)
    expect(once.playback, 'the playback endpoint documents itself for plugin-openapi').to.equal('storageHostPlayback_videos')
  })
})
