/**
 * @module test/storages/hostPath
 * Issue 24 #14: the original's `path` of a `bunny` (our `host`) storage, a folder inside the zone.
 * Against the host emulator: the whole storage suite runs under a `path`, objects land below it in the
 * zone, listings are relative to it, deleting empties folders up to it but not it, and the signed
 * pull-zone URL points at the object below it. The original's documented example config loads.
 */
import { expect } from 'chai'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { loadConfig } from '../../src/config/loadConfig.js'
import { HostApi } from '../../src/storages/host/hostApi.js'
import { hostStorage } from '../../src/storages/host/index.js'
import type { Storage } from '../../src/storages/types.js'
import { tempDir } from '../engine/helpers.js'
import { runStorageSuite } from '../support/runStorageSuite.js'
import { startHostEmulator, type Emulator } from './support/hostEmulator.js'

const never = () => new AbortController().signal

describe('storages/host with the original `path` key', () => {
  describe('storage suite under path "snapr/postgres"', () => {
    const running = new Map<Storage, Emulator>()
    runStorageSuite({
      newStorage: async () => {
        const own = await startHostEmulator({ storage: { zoneName: 'suite', accessKey: 'suite-key' } })
        const storage = hostStorage.create(
          hostStorage.configSchema.parse({
            type: 'host',
            name: 'suite',
            endpoint: own.storage.endpoint,
            zoneName: 'suite',
            accessKey: 'suite-key',
            path: 'snapr/postgres',
          }),
        )
        running.set(storage, own)
        return storage
      },
      cleanup: async (storage) => {
        await running.get(storage)?.close()
        running.delete(storage)
      },
    })
  })

  describe('placement in the zone', () => {
    let emulator: Emulator
    before(async () => {
      emulator = await startHostEmulator({ storage: { zoneName: 'backups', accessKey: 'zone-password' }, pullZone: { tokenAuthKey: 'cdn-key' } })
    })
    after(() => emulator.close())

    const create = (path: string) =>
      hostStorage.create(
        hostStorage.configSchema.parse({
          type: 'host',
          name: 'bunny',
          endpoint: emulator.storage.endpoint,
          zoneName: 'backups',
          accessKey: 'zone-password',
          path,
          pullZoneHostname: emulator.storage.cdnUrl,
          pullZoneTokenAuthKey: 'cdn-key',
        }),
      )

    it('writes below path, lists relative to it, and keeps path when the last snapshot goes', async () => {
      const storage = create('/snapr/postgres/')
      await (await storage.write('nightly', Readable.from([Buffer.from('snapshot')]), never())).commit('nightly/nightly-20260101-000000.tar')
      expect(emulator.storedFilePath('snapr/postgres/nightly/nightly-20260101-000000.tar')).to.be.a('string')
      expect(emulator.storedFilePath('nightly/nightly-20260101-000000.tar')).to.equal(undefined)
      const listed = await storage.list('nightly/')
      expect(listed.map((o) => o.key)).to.deep.equal(['nightly/nightly-20260101-000000.tar'])
      // Another storage on the same zone without a path sees it only under the full name.
      expect((await create('').list('snapr/')).map((o) => o.key)).to.deep.equal(['snapr/postgres/nightly/nightly-20260101-000000.tar'])

      const url = await storage.downloadUrl!('nightly/nightly-20260101-000000.tar')
      expect(new URL(url!).pathname).to.equal(
        `${new URL(emulator.storage.cdnUrl).pathname.replace(/\/$/, '')}/snapr/postgres/nightly/nightly-20260101-000000.tar`,
      )
      const response = await fetch(url!)
      expect(response.status).to.equal(200)
      expect(await response.text()).to.equal('snapshot')

      await storage.delete('nightly/nightly-20260101-000000.tar')
      const api = new HostApi({ endpoint: emulator.storage.endpoint, zoneName: 'backups', accessKey: 'zone-password' })
      expect((await api.listDirectory('snapr')).map((e) => e.ObjectName)).to.deep.equal(['postgres'])
    })

    it('refuses a path that climbs out of the zone', () => {
      expect(() => create('../other')).to.throw()
    })
  })

  it("loads the original's documented bunny storage example", async () => {
    const tmp = await tempDir()
    try {
      const file = join(tmp.dir, 'snapr.yaml')
      await writeFile(
        file,
        `jobs:
  - name: db
    sources: [{ type: local, path: . }]
    storages:
      - type: bunny
        name: bunny-cold
        endpoint: storage.bunnycdn.com
        zoneName: my-zone
        accessKey: env:BUNNY_KEY
        path: snapr/postgres
        pullZoneHostname: my-zone.b-cdn.net
        pullZoneTokenAuthKey: env:BUNNY_PULLZONE_KEY
        pullZoneTokenTTL: 1800
    retention: { last: 3 }
`,
      )
      const config = await loadConfig(file, { BUNNY_KEY: 'k', BUNNY_PULLZONE_KEY: 'p' })
      expect(config.jobs[0]!.storages[0]).to.deep.include({
        type: 'host',
        name: 'bunny-cold',
        zoneName: 'my-zone',
        path: 'snapr/postgres',
        pullZoneTokenTTL: 1800,
      })
    } finally {
      await tmp.remove()
    }
  })
})
