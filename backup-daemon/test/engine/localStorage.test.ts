import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalStorage } from '../../src/storages/local.js'
import { runStorageSuite } from '../support/runStorageSuite.js'

describe('storages/local', () => {
  runStorageSuite({
    newStorage: async () => new LocalStorage('disk', await mkdtemp(join(tmpdir(), 'bd-local-'))),
    cleanup: async (storage) => rm((storage as LocalStorage).root, { recursive: true, force: true }),
  })
})
