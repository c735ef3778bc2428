import { expect } from 'chai'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { LocalSource } from '../../src/sources/local/index.js'
import { excludeMatcher } from '../../src/sources/support/excludeMatcher.js'
import { tempDir } from '../engine/helpers.js'
import { entriesOf } from '../support/entriesOf.js'

/** Which of `paths` the patterns exclude. */
const excluded = (patterns: string[], paths: string[]) => paths.filter(excludeMatcher(patterns))

describe("sources/support/excludeMatcher (the original's excludes)", () => {
  const paths = [
    'a.tmp',
    'docs/b.tmp',
    'docs/deep/c.tmp',
    'docs/readme.md',
    'cache',
    'cache/x',
    'src/cache',
    'src/cache/y',
    'src/cachet/z',
    'logs/app.log',
    'logs/old/app.log',
    'node_modules/p/index.js',
    'web/node_modules/q.js',
    '.git/HEAD',
  ]

  it('a glob matches the relative path or the file name', () => {
    expect(excluded(['*.tmp'], paths)).to.deep.equal(['a.tmp', 'docs/b.tmp', 'docs/deep/c.tmp'])
    expect(excluded(['logs/*.log'], paths)).to.deep.equal(['logs/app.log'])
    expect(excluded(['docs/*'], paths)).to.deep.equal(['docs/b.tmp', 'docs/readme.md'])
  })

  it('dir/ matches the folder and everything under it, from the source root', () => {
    expect(excluded(['cache/'], paths)).to.deep.equal(['cache', 'cache/x'])
    expect(excluded(['logs/'], paths)).to.deep.equal(['logs/app.log', 'logs/old/app.log'])
    expect(excluded(['src/cache/'], paths)).to.deep.equal(['src/cache', 'src/cache/y'])
  })

  it('**/cache/** matches what is under any cache folder; **/*.log any .log', () => {
    expect(excluded(['**/cache/**'], paths))
      .to.include.members(['cache/x', 'src/cache/y'])
      .and.not.include('src/cachet/z')
    expect(excluded(['**/*.log'], paths)).to.deep.equal(['logs/app.log', 'logs/old/app.log'])
  })

  it('a bare name matches a file or a folder of that name at any depth, not a longer name', () => {
    expect(excluded(['cache'], paths)).to.deep.equal(['cache', 'cache/x', 'src/cache', 'src/cache/y'])
    expect(excluded(['node_modules'], paths)).to.deep.equal(['node_modules/p/index.js', 'web/node_modules/q.js'])
    expect(excluded(['.git'], paths)).to.deep.equal(['.git/HEAD'])
    expect(excluded(['readme.md'], paths)).to.deep.equal(['docs/readme.md'])
  })

  it('ignores empty patterns; no pattern excludes nothing', () => {
    expect(excluded(['', '  '], paths)).to.deep.equal([])
    expect(excluded([], paths)).to.deep.equal([])
  })

  it('the local source skips what the patterns name, on a real tree', async () => {
    const tmp = await tempDir()
    try {
      for (const file of ['keep.txt', 'a.tmp', 'cache/big', 'sub/cache/big', 'sub/keep.md', 'node_modules/x.js', 'logs/app.log']) {
        await mkdir(join(tmp.dir, file, '..'), { recursive: true })
        await writeFile(join(tmp.dir, file), 'x')
      }
      const source = new LocalSource('s', tmp.dir, ['*.tmp', 'cache', 'node_modules/', '**/*.log'], { log: () => undefined })
      const names: string[] = []
      for await (const entry of entriesOf(source, new AbortController().signal)) names.push(entry.name)
      expect(names).to.deep.equal(['s', 's/keep.txt', 's/logs', 's/sub', 's/sub/keep.md'])
    } finally {
      await tmp.remove()
    }
  })
})
