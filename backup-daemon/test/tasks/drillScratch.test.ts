/**
 * The drill's scratch space (`restore/drill/drillScratch.ts`): a folder named with a prefix, the process id
 * and a random part under `<dataDir>/drills/`; refused before anything is created when the file system has
 * less room than the snapshot; the sweep at start removes the folders of processes that are gone and keeps
 * those of live processes (this one included) and anything not named like a scratch folder.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdir, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { createDrillScratch, drillsFolder, sweepDrillScratch } from '../../src/restore/drill/drillScratch.js'
import { tempDir } from '../engine/helpers.js'

describe('restore/drill/drillScratch: the scratch folder of a drill', function () {
  this.timeout(20_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir('bd-drill-scratch-')))
  afterEach(() => tmp.remove())

  it('is named drill-<pid>-<random>, private, and removed by remove()', async () => {
    const scratch = await createDrillScratch(tmp.dir, 1024)
    expect(scratch.dir.startsWith(drillsFolder(tmp.dir) + '/')).to.equal(true)
    expect(scratch.dir).to.match(new RegExp(`/drill-${process.pid}-[0-9a-f]{12}$`))
    expect((await stat(scratch.dir)).mode & 0o777).to.equal(0o700)
    const other = await createDrillScratch(tmp.dir, 1024)
    expect(other.dir).not.to.equal(scratch.dir)
    await scratch.remove()
    await other.remove()
    expect(await readdir(drillsFolder(tmp.dir))).to.deep.equal([])
  })

  it('is refused, naming the room there is, when the file system has less than the snapshot needs', async () => {
    const error = await createDrillScratch(tmp.dir, Number.MAX_SAFE_INTEGER).then(
      () => undefined,
      (err: Error) => err,
    )
    expect(error?.message).to.match(/^not enough free space for the drill in .*: \d+ bytes free, the snapshot alone is \d+ bytes; nothing was restored$/)
    expect(await readdir(drillsFolder(tmp.dir))).to.deep.equal([])
  })

  it('the sweep removes the folders of processes that are gone, and only those', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
    try {
      const folder = drillsFolder(tmp.dir)
      const names = {
        gone: 'drill-99999999-0123456789ab',
        live: `drill-${child.pid}-0123456789ab`,
        ours: `drill-${process.pid}-0123456789ab`,
        other: 'notes',
      }
      for (const name of Object.values(names)) await mkdir(join(folder, name, 'files'), { recursive: true })
      expect(await sweepDrillScratch(tmp.dir)).to.deep.equal([names.gone])
      expect((await readdir(folder)).sort()).to.deep.equal([names.live, names.ours, names.other].sort())
    } finally {
      child.kill()
    }
  })
})
