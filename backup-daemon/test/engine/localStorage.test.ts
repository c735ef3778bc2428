import { expect } from 'chai'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { Readable } from 'node:stream'
import { LocalStorage } from '../../src/storages/local.js'
import { runStorageSuite } from '../support/runStorageSuite.js'

const fsPromises = createRequire(import.meta.url)('node:fs/promises') as typeof import('node:fs/promises')

describe('storages/local', () => {
  runStorageSuite({
    newStorage: async () => new LocalStorage('disk', await mkdtemp(join(tmpdir(), 'bd-local-'))),
    cleanup: async (storage) => rm((storage as LocalStorage).root, { recursive: true, force: true }),
  })

  it('lists what is there when a file vanishes between reading its folder and its size (a run committing or cleaning up meanwhile)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'bd-local-race-'))
    const storage = new LocalStorage('disk', root)
    const signal = new AbortController().signal
    await (await storage.write('job', Readable.from([Buffer.from('kept')]), signal)).commit('job/kept.tar')
    await (await storage.write('job', Readable.from([Buffer.from('gone')]), signal)).commit('job/gone.tar')
    // The listing's stat of `gone.tar` finds it removed: the race the web UI's polling hit during a run.
    const realStat = fsPromises.stat
    fsPromises.stat = (async (path: string, ...rest: unknown[]) => {
      if (basename(String(path)) === 'gone.tar') await rm(path, { force: true })
      return (realStat as (...a: unknown[]) => Promise<unknown>)(path, ...rest)
    }) as typeof realStat
    syncBuiltinESMExports()
    try {
      const listed = await storage.list('job/')
      expect(listed.map((o) => o.key)).to.deep.equal(['job/kept.tar'])
    } finally {
      fsPromises.stat = realStat
      syncBuiltinESMExports()
      await rm(root, { recursive: true, force: true })
    }
  })
})
