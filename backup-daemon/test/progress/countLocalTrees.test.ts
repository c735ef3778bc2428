/**
 * `sources/local/countLocalTrees.ts`: the first run's total, counted by `find` in a child process and,
 * where `find` cannot run, in Node. Both give the sum the walk reads: files only (links, FIFOs and folders
 * left out, no link followed, the root itself may be a link), excludes applied to files and to folders
 * (a matching folder hides what is below it), names with tabs and newlines counted once.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countLocalTrees, type CountOptions } from '../../src/sources/local/countLocalTrees.js'

describe('progress: countLocalTrees', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'count-trees-'))
    const tree = join(dir, 'tree')
    mkdirSync(join(tree, 'a', 'cache', 'deep'), { recursive: true })
    mkdirSync(join(tree, 'node_modules', 'x'), { recursive: true })
    mkdirSync(join(tree, 'keep.tmp'))
    writeFileSync(join(tree, 'one.txt'), Buffer.alloc(1000))
    writeFileSync(join(tree, 'a', 'two.bin'), Buffer.alloc(20_000))
    writeFileSync(join(tree, 'a', 'skip.log'), Buffer.alloc(300))
    writeFileSync(join(tree, 'a', 'cache', 'c.bin'), Buffer.alloc(4000))
    writeFileSync(join(tree, 'a', 'cache', 'deep', 'd.bin'), Buffer.alloc(5000))
    writeFileSync(join(tree, 'node_modules', 'x', 'm.js'), Buffer.alloc(700))
    // A folder matching `*.tmp` is skipped whole, as the walk skips it.
    writeFileSync(join(tree, 'keep.tmp', 'inside.txt'), Buffer.alloc(60))
    writeFileSync(join(tree, 'tab\there'), Buffer.alloc(11))
    writeFileSync(join(tree, 'new\nline'), Buffer.alloc(13))
    // Outside the tree, reached only through links, which are never followed.
    writeFileSync(join(dir, 'outside.bin'), Buffer.alloc(900_000))
    symlinkSync(join(dir, 'outside.bin'), join(tree, 'link-to-file'))
    symlinkSync(dir, join(tree, 'link-to-folder'))
    execFileSync('mkfifo', [join(tree, 'fifo')])
    // The configured root may itself be a link (e.g. /srv/current).
    symlinkSync(tree, join(dir, 'current'))
    // The real find, leaving a mark that it ran (so the find case cannot pass through the Node fallback).
    writeFileSync(join(dir, 'find'), `#!/bin/sh\ntouch '${join(dir, 'find-ran')}'\nexec find "$@"\n`)
    chmodSync(join(dir, 'find'), 0o755)
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const ways: [string, () => CountOptions][] = [
    ['find', () => ({ find: join(dir, 'find') })],
    ['Node (no find)', () => ({ find: '' })],
    ['Node (find missing)', () => ({ find: join(tmpdir(), 'no-such-find-binary') })],
  ]
  for (const [way, optionsOf] of ways) {
    it(`sums the files the walk reads, excludes applied, no link followed (${way})`, async () => {
      const options = optionsOf()
      const signal = new AbortController().signal
      const all = 1000 + 20_000 + 300 + 4000 + 5000 + 700 + 60 + 11 + 13
      expect(await countLocalTrees([{ path: join(dir, 'tree') }], signal, options)).to.equal(all)
      expect(await countLocalTrees([{ path: join(dir, 'current') }], signal, options)).to.equal(all)
      const excluded = await countLocalTrees([{ path: join(dir, 'tree'), exclude: ['*.log', 'a/cache/', 'node_modules', '*.tmp'] }], signal, options)
      expect(excluded).to.equal(1000 + 20_000 + 11 + 13)
      // Two trees add up; a missing one counts nothing.
      const two = await countLocalTrees(
        [{ path: join(dir, 'tree', 'a') }, { path: join(dir, 'missing') }, { path: join(dir, 'tree', 'a', 'cache') }],
        signal,
        options,
      )
      expect(two).to.equal(20_000 + 300 + 4000 + 5000 + (4000 + 5000))
      expect(existsSync(join(dir, 'find-ran'))).to.equal(way === 'find')
    })

    it(`stops with the abort reason (${way})`, async () => {
      const stopped = new AbortController()
      stopped.abort(new Error('run over'))
      const error = await countLocalTrees([{ path: join(dir, 'tree') }], stopped.signal, optionsOf()).catch((err: unknown) => err)
      expect((error as Error).message).to.equal('run over')
    })
  }

  it('an abort while find runs kills it and rejects with the reason at once', async () => {
    writeFileSync(join(dir, 'slow-find'), `#!/bin/sh\necho $$ > '${join(dir, 'slow-find.pid')}'\nexec sleep 30\n`)
    chmodSync(join(dir, 'slow-find'), 0o755)
    const stop = new AbortController()
    const counting = countLocalTrees([{ path: join(dir, 'tree') }], stop.signal, { find: join(dir, 'slow-find') }).catch((err: unknown) => err)
    while (!existsSync(join(dir, 'slow-find.pid'))) await new Promise((resolve) => setTimeout(resolve, 10))
    stop.abort(new Error('run over'))
    expect(((await counting) as Error).message).to.equal('run over')
    // Gone (killed and reaped) once the count has rejected.
    const pid = Number(readFileSync(join(dir, 'slow-find.pid'), 'utf8'))
    expect(existsSync(`/proc/${pid}`)).to.equal(false)
  })
})
