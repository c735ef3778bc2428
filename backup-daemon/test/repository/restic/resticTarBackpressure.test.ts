/**
 * A restic run's tar read by a slow reader (a restore feeding pg_restore, a drill) waits on it many times
 * without leaving a listener behind per wait (issue 38: MaxListenersExceededWarning on every restic restore
 * and drill). restic is a stand-in script here: `dump` prints 24 MiB as fast as a pipe takes it.
 */
import { expect } from 'chai'
import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { openRunTar } from '../../../src/repository/restic/resticTar.js'
import { tempDir } from '../../engine/helpers.js'

describe('restic: the run tar under a slow reader', function () {
  this.timeout(30_000)

  it('waits for the reader as often as it must without piling up listeners (no MaxListenersExceededWarning)', async () => {
    const tmp = await tempDir('bd-restic-tar-')
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
    process.on('warning', onWarning)
    try {
      const binary = join(tmp.dir, 'restic')
      await writeFile(binary, '#!/bin/sh\n[ "$1" = dump ] && exec head -c 25165824 /dev/zero\nexit 1\n')
      await chmod(binary, 0o755)
      const tar = openRunTar({ binary, repository: tmp.dir }, [{ name: 'db', id: 'abc', form: 'dump', root: '/db.tar' }])
      let bytes = 0
      let most = 0
      let chunks = 0
      for await (const chunk of tar) {
        bytes += (chunk as Buffer).length
        most = Math.max(most, tar.listenerCount('close'))
        // A reader that stops now and then for longer than the producer needs to fill its 1 MiB buffer.
        if (++chunks % 8 === 0) await sleep(25)
      }
      // The dump's bytes, then the tar's two end blocks (and padding to a record).
      expect(bytes).to.be.at.least(24 * 1024 * 1024)
      expect(most, 'close listeners at once').to.be.below(5)
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings).to.deep.equal([])
    } finally {
      process.off('warning', onWarning)
      await tmp.remove()
    }
  })
})
