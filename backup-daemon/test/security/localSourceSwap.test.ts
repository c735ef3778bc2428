/**
 * A tree changed under a running backup must not pull files from outside it. The walk's `lstat` is
 * intercepted (node's builtin ESM bindings re-synced from the patched CommonJS `fs/promises`), so the
 * swap happens at an exact point: after the walk saw a real folder or file, before it is opened. The
 * outside file (mode 600, as the one the probe pulled in) must not be in the archive, and what changed
 * is skipped with a warning.
 */
import { expect } from 'chai'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { execFileSync } from 'node:child_process'
import { renameSync, symlinkSync } from 'node:fs'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import tar from 'tar-stream'
import { createArchive } from '../../src/archive/createArchive.js'
import { LocalSource } from '../../src/sources/local/index.js'
import { tempDir } from '../engine/helpers.js'

const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs')
const realOpen = fs.openSync

/** Calls `before(path)` once, right before the walk opens an entry named `name` (it was listed as it was). */
function beforeOpenOf(name: string, before: (path: string) => void): () => void {
  let done = false
  fs.openSync = ((path: string, ...rest: unknown[]) => {
    if (!done && basename(String(path)) === name) {
      done = true
      before(String(path))
    }
    return (realOpen as (...a: unknown[]) => number)(path, ...rest)
  }) as typeof realOpen
  syncBuiltinESMExports()
  return () => {
    fs.openSync = realOpen
    syncBuiltinESMExports()
  }
}

/** Every file entry of the archive: name -> content (without the snapshot record, which only restates them). */
async function archiveFiles(source: LocalSource): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  const extract = tar.extract()
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = []
      stream.on('data', (c: unknown) => void chunks.push(c as Buffer))
      stream.on('end', () => {
        if (header.type === 'file') files.set(header.name, Buffer.concat(chunks).toString())
        next()
      })
    })
    extract.on('finish', resolve)
    extract.on('error', reject)
  })
  createArchive([source], { compression: 'tar', record: false, signal: new AbortController().signal }).pipe(extract)
  await done
  return files
}

// The walk (`sources/local/localWalk.ts`) under both builders that run in this thread (where `openSync` can be
// intercepted): the archive writer's batches, and the tar builder the worker runs (`sources/local/tarWorker/treeTar.ts`).
for (const tarBuilder of ['batches', 'thread'] as const)
  describe(`security: a swap inside the backed-up tree cannot pull files from outside it (${tarBuilder})`, () => {
    let tmp: Awaited<ReturnType<typeof tempDir>>
    let root: string
    let outside: string
    let restore: (() => void) | undefined
    const warnings: string[] = []
    const context = { log: (level: string, message: string) => void (level === 'warn' && warnings.push(message)) }

    beforeEach(async () => {
      tmp = await tempDir('sec-swap-')
      root = join(tmp.dir, 'tree')
      outside = join(tmp.dir, 'outside')
      await mkdir(join(root, 'a'), { recursive: true })
      await writeFile(join(root, 'a', 'secret'), 'inside content')
      await writeFile(join(root, 'z.txt'), 'last file')
      await mkdir(outside)
      await writeFile(join(outside, 'secret'), 'OUTSIDE SECRET')
      await chmod(join(outside, 'secret'), 0o600)
      warnings.length = 0
    })
    afterEach(async () => {
      restore?.()
      restore = undefined
      await tmp.remove()
    })

    const swapFolderForLink = () => {
      renameSync(join(root, 'a'), join(tmp.dir, 'a.moved'))
      symlinkSync(outside, join(root, 'a'))
    }

    it('a folder replaced by a link after the walk saw it: skipped with a warning, nothing from outside', async () => {
      restore = beforeOpenOf('a', swapFolderForLink)
      const files = await archiveFiles(new LocalSource('src', root, [], context, { tarBuilder }))
      expect([...files.values()]).not.to.include('OUTSIDE SECRET')
      expect(files.get('src/z.txt')).to.equal('last file')
      expect(warnings.join('\n')).to.match(/skipped a: it changed while the backup read it/)
    })

    it('a folder replaced by a link after its file was seen: the file is read from the folder listed, not through the link', async () => {
      restore = beforeOpenOf('secret', swapFolderForLink)
      const files = await archiveFiles(new LocalSource('src', root, [], context, { tarBuilder }))
      expect([...files.values()]).not.to.include('OUTSIDE SECRET')
      expect(files.get('src/a/secret')).to.equal('inside content')
      expect(files.get('src/z.txt')).to.equal('last file')
    })

    it('a file replaced by a link to an outside file after it was listed: skipped with a warning', async () => {
      restore = beforeOpenOf('secret', (path) => {
        renameSync(path, join(tmp.dir, 'secret.moved'))
        symlinkSync(join(outside, 'secret'), join(root, 'a', 'secret'))
      })
      const files = await archiveFiles(new LocalSource('src', root, [], context, { tarBuilder }))
      expect([...files.values()]).not.to.include('OUTSIDE SECRET')
      expect(files.has('src/a/secret')).to.equal(false)
      expect(warnings.join('\n')).to.match(/skipped a\/secret: it changed while the backup read it/)
    })

    // A regular file replaced by another regular file (or a hard link) inside the tree is read as it is when
    // opened: it is a file of the tree, archived as if it had been there when the walk listed the folder.
    it('a file replaced by a FIFO after it was listed: skipped with a warning, the walk does not block on it', async () => {
      restore = beforeOpenOf('secret', (path) => {
        renameSync(path, join(tmp.dir, 'secret.moved'))
        // By its real path: /proc/self/fd/<n> in the walk's path means another folder to the child.
        execFileSync('mkfifo', [join(root, 'a', 'secret')])
      })
      const files = await archiveFiles(new LocalSource('src', root, [], context, { tarBuilder }))
      expect(files.has('src/a/secret')).to.equal(false)
      expect(files.get('src/z.txt')).to.equal('last file')
      expect(warnings.join('\n')).to.match(/skipped a\/secret: it changed/)
    })

    it('an unchanged tree is archived whole without warnings', async () => {
      const files = await archiveFiles(new LocalSource('src', root, [], context, { tarBuilder }))
      expect(Object.fromEntries(files)).to.deep.equal({ 'src/a/secret': 'inside content', 'src/z.txt': 'last file' })
      expect(warnings).to.deep.equal([])
    })
  })
