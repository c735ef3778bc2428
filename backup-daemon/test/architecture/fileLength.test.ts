/**
 * @module test/architecture/fileLength
 * Issue 26: no source file of `src/` is over 300 lines (.ts and .tsx; tests, scripts and the UI's built
 * bundle are not sources). A file that grows past it is one that holds more than one concern, as
 * `engine/createEngine.ts` did at 435 lines; the failure names every such file with its length. A second
 * case runs the same check on a tree with a long file, so a check that never fails could not pass here.
 */
import { expect } from 'chai'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tempDir } from '../engine/helpers.js'

const maxLines = 300
const daemonSrc = fileURLToPath(new URL('../../src', import.meta.url))

/** Every .ts/.tsx file under `root` over `maxLines` lines, as `path (N lines)` relative to `root`. */
function longFiles(root: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue
    const path = join(entry.parentPath, entry.name)
    const text = readFileSync(path, 'utf8')
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
    if (lines > maxLines) found.push(`${relative(root, path)} (${lines} lines)`)
  }
  return found.sort()
}

describe(`architecture: no source file of backup-daemon/src is over ${maxLines} lines`, () => {
  it('finds none in src/', () => {
    const long = longFiles(daemonSrc)
    expect(long, `split these by concern: ${long.join(', ')}`).to.deep.equal([])
  })

  it('names a file over the limit, and lets one at the limit pass', async () => {
    const temp = await tempDir()
    after(() => temp.remove())
    await mkdir(join(temp.dir, 'engine', 'deep'), { recursive: true })
    await writeFile(join(temp.dir, 'engine', 'deep', 'long.ts'), 'export const a = 1\n'.repeat(maxLines + 1))
    await writeFile(join(temp.dir, 'engine', 'view.tsx'), 'export const b = 2\n'.repeat(maxLines + 5))
    await writeFile(join(temp.dir, 'engine', 'atLimit.ts'), 'export const c = 3\n'.repeat(maxLines))
    await writeFile(join(temp.dir, 'engine', 'notes.md'), 'text\n'.repeat(maxLines * 2))
    expect(longFiles(temp.dir)).to.deep.equal([`engine/deep/long.ts (${maxLines + 1} lines)`, `engine/view.tsx (${maxLines + 5} lines)`])
  })
})
