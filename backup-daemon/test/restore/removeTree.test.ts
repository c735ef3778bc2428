/**
 * `restore/removeTree`: a scratch or temporary folder removed with a bounded number of calls in flight
 * (issue 42: Node's recursive `rm` had ~160,000 unlinks pending at once). Everything below goes, names that
 * are not UTF-8 included; a link is removed, never followed; nothing there is not an error.
 */
import { expect } from 'chai'
import { existsSync } from 'node:fs'
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { removeTree } from '../../src/restore/removeTree.js'
import { tempDir } from '../engine/helpers.js'

describe('restore/removeTree: a folder and all it holds, a few calls at a time', () => {
  let tmp: { dir: string; remove(): Promise<void> }
  beforeEach(async () => (tmp = await tempDir('bd-remove-tree-')))
  afterEach(() => tmp.remove())

  it('removes a deep tree of many files, odd names and links, and nothing a link points at', async () => {
    const tree = join(tmp.dir, 'tree')
    const kept = join(tmp.dir, 'kept')
    await mkdir(kept)
    await writeFile(join(kept, 'file'), 'kept')
    for (let d = 0; d < 5; d++) {
      await mkdir(join(tree, `d${d}`, 'deeper'), { recursive: true })
      for (let f = 0; f < 300; f++) await writeFile(join(tree, `d${d}`, `f${f}`), '')
    }
    await writeFile(Buffer.concat([Buffer.from(`${tree}/d0/deeper/`), Buffer.from([0x69, 0xff, 0xfe, 0x0a])]), 'not utf-8')
    await symlink(kept, join(tree, 'd1', 'link-to-folder'))
    await symlink(join(kept, 'file'), join(tree, 'link-to-file'))
    await removeTree(tree)
    expect(existsSync(tree)).to.equal(false)
    expect(await readdir(kept)).to.deep.equal(['file'])
  })

  it('takes a path with nothing there, and a single file', async () => {
    await removeTree(join(tmp.dir, 'nothing'))
    await writeFile(join(tmp.dir, 'one'), '1')
    await removeTree(join(tmp.dir, 'one'))
    expect(await readdir(tmp.dir)).to.deep.equal([])
  })
})
