import { expect } from 'chai'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { HostApi } from '../../src/storages/host/hostApi.js'
import { hostStorage } from '../../src/storages/host/index.js'
import type { Storage } from '../../src/storages/types.js'
import { runStorageSuite } from '../support/runStorageSuite.js'
import { startHostEmulator, type Emulator } from './support/hostEmulator.js'

const never = () => new AbortController().signal

describe('storages/host (against the host emulator)', () => {
  let emulator: Emulator
  before(async () => {
    emulator = await startHostEmulator({ storage: { zoneName: 'backups', accessKey: 'zone-password' }, pullZone: { tokenAuthKey: 'cdn-key' } })
  })
  after(() => emulator.close())

  const create = (extra: object = {}) =>
    hostStorage.create(
      hostStorage.configSchema.parse({
        type: 'host',
        name: 'bunny',
        endpoint: emulator.storage.endpoint,
        zoneName: 'backups',
        accessKey: 'zone-password',
        ...extra,
      }),
    )

  describe('storage suite', () => {
    // A fresh emulator (an empty zone) per test.
    const running = new Map<Storage, Emulator>()
    runStorageSuite({
      newStorage: async () => {
        const own = await startHostEmulator({ storage: { zoneName: 'suite', accessKey: 'suite-key' } })
        const storage = hostStorage.create(
          hostStorage.configSchema.parse({ type: 'host', name: 'suite', endpoint: own.storage.endpoint, zoneName: 'suite', accessKey: 'suite-key' }),
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

  it('uploads with the Checksum header so the host stores exactly the bytes', async () => {
    const storage = create()
    const body = Buffer.from('checksum me '.repeat(1000))
    await (await storage.write('sum', Readable.from([body]), never())).commit('sum/a.tar')
    const path = emulator.storedFilePath('sum/a.tar')
    expect(path).to.be.a('string')
    expect((await buffer(await storage.open('sum/a.tar'))).equals(body)).to.equal(true)
    await storage.delete('sum/a.tar')
    expect(emulator.storedFilePath('sum/a.tar')).to.equal(undefined)
  })

  it("removes the folders a deletion empties (a split set's), and nothing else", async () => {
    const storage = create()
    await (await storage.write('gc', Readable.from([Buffer.from('1')]), never())).commit('gc/set.parts-2-2/set.part-aaa')
    await (await storage.write('gc', Readable.from([Buffer.from('2')]), never())).commit('gc/set.parts-2-2/set.part-aab')
    await (await storage.write('gc', Readable.from([Buffer.from('3')]), never())).commit('gc/keep.tar')
    const api = new HostApi({ endpoint: emulator.storage.endpoint, zoneName: 'backups', accessKey: 'zone-password' })
    expect((await api.listDirectory('gc')).map((e) => e.ObjectName).sort()).to.deep.equal(['keep.tar', 'set.parts-2-2'])
    await storage.delete('gc/set.parts-2-2/set.part-aaa')
    expect((await api.listDirectory('gc')).map((e) => e.ObjectName).sort()).to.deep.equal(['keep.tar', 'set.parts-2-2'])
    await storage.delete('gc/set.parts-2-2/set.part-aab')
    expect((await api.listDirectory('gc')).map((e) => e.ObjectName)).to.deep.equal(['keep.tar'])
    await storage.delete('gc/keep.tar')
  })

  it('refuses a wrong AccessKey without retrying forever and without echoing the key', async () => {
    const storage = hostStorage.create(
      hostStorage.configSchema.parse({ type: 'host', name: 'bad', endpoint: emulator.storage.endpoint, zoneName: 'backups', accessKey: 'wrong-secret' }),
    )
    const err = (await storage.list('x/').catch((e: unknown) => e)) as Error
    expect(err).to.be.instanceOf(Error)
    expect(err.message).to.include('401')
    expect(err.message).not.to.include('wrong-secret')
  })

  it('streams downloads when no pull zone is configured', async () => {
    expect(await create().downloadUrl?.('job/a')).to.equal(undefined)
  })

  it('gives a token-signed pull-zone URL the CDN accepts, and the CDN refuses it tampered', async () => {
    const storage = create({ pullZoneHostname: emulator.storage.cdnUrl, pullZoneTokenAuthKey: 'cdn-key', pullZoneTokenTTL: 120 })
    await (await storage.write('dl', Readable.from([Buffer.from('via cdn')]), never())).commit('dl/snap shot.tar')
    const signedFrom = Math.floor(Date.now() / 1000)
    const url = await storage.downloadUrl!('dl/snap shot.tar')
    const signedBy = Math.floor(Date.now() / 1000)
    expect(url).to.match(/\?token=HS256-[\w-]+&expires=\d+$/)
    // The TTL (120 s) counted from the moment of signing: bounded by the clock read before and after, not a window.
    const expires = Number(new URL(url!).searchParams.get('expires'))
    expect(expires).to.be.within(signedFrom + 120, signedBy + 120)
    const ok = await fetch(url!)
    expect(ok.status).to.equal(200)
    expect(await ok.text()).to.equal('via cdn')
    const tampered = await fetch(url!.replace('snap%20shot.tar', 'other.tar'))
    expect(tampered.status).to.be.oneOf([401, 403])
    await storage.delete('dl/snap shot.tar')
  })

  it('rejects pullZoneTokenAuthKey without pullZoneHostname in the config', () => {
    const result = hostStorage.configSchema.safeParse({ type: 'host', name: 'h', zoneName: 'z', accessKey: 'k', pullZoneTokenAuthKey: 'x' })
    expect(result.success).to.equal(false)
  })
})
