/**
 * A tree changed under a running backup must not pull files from outside it. The walk's `lstat` is
 * intercepted (node's builtin ESM bindings re-synced from the patched CommonJS `fs/promises`), so the
 * swap happens at an exact point: after the walk saw a real folder or file, before it is opened. The
 * outside file (mode 600, as the one the probe pulled in) must not be in the archive, and what changed
 * is skipped with a warning.
 */
import { expect } from 'chai'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { chmod, mkdir, rename, symlink, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import tar from 'tar-stream'
import { createArchive } from '../../src/archive/createArchive.js'
import { LocalSource } from '../../src/sources/local.js'
import { tempDir } from '../engine/helpers.js'

const fsPromises = createRequire(import.meta.url)('node:fs/promises') as typeof import('node:fs/promises')
const realLstat = fsPromises.lstat

/** Calls `after(path)` once, right after the walk's lstat of an entry named `name` returned. */
function afterLstatOf(name: string, after: (path: string) => Promise<void>): () => void {
  let done = false
  fsPromises.lstat = (async (path: string, ...rest: unknown[]) => {
    const info = await (realLstat as (...a: unknown[]) => Promise<unknown>)(path, ...rest)
    if (!done && basename(String(path)) === name) {
      done = true
      await after(String(path))
    }
    return info
  }) as typeof realLstat
  syncBuiltinESMExports()
  return () => {
    fsPromises.lstat = realLstat
    syncBuiltinESMExports()
  }
}

/** Every file entry of the archive: name -> content. */
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
  createArchive([source], { compression: 'tar', signal: new AbortController().signal }).pipe(extract)
  await done
  return files
}

describe('security: a swap inside the backed-up tree cannot pull files from outside it', () => {
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

  const swapFolderForLink = async () => {
    await rename(join(root, 'a'), join(tmp.dir, 'a.moved'))
    await symlink(outside, join(root, 'a'))
  }

  it('a folder replaced by a link after the walk saw it: skipped with a warning, nothing from outside', async () => {
    restore = afterLstatOf('a', swapFolderForLink)
    const files = await archiveFiles(new LocalSource('src', root, [], context))
    expect([...files.values()]).not.to.include('OUTSIDE SECRET')
    expect(files.get('src/z.txt')).to.equal('last file')
    expect(warnings.join('\n')).to.match(/skipped a: it changed while the backup read it/)
  })

  it('a folder replaced by a link after its file was seen: the file is read from the folder listed, not through the link', async () => {
    restore = afterLstatOf('secret', swapFolderForLink)
    const files = await archiveFiles(new LocalSource('src', root, [], context))
    expect([...files.values()]).not.to.include('OUTSIDE SECRET')
    expect(files.get('src/a/secret')).to.equal('inside content')
    expect(files.get('src/z.txt')).to.equal('last file')
  })

  it('a file replaced by a link to an outside file after its lstat: skipped with a warning', async () => {
    restore = afterLstatOf('secret', async (path) => {
      await rename(path, join(tmp.dir, 'secret.moved'))
      await symlink(join(outside, 'secret'), join(root, 'a', 'secret'))
    })
    const files = await archiveFiles(new LocalSource('src', root, [], context))
    expect([...files.values()]).not.to.include('OUTSIDE SECRET')
    expect(files.has('src/a/secret')).to.equal(false)
    expect(warnings.join('\n')).to.match(/skipped a\/secret: it changed while the backup read it/)
  })

  it('a file replaced by another file after its lstat (a hard link to an outside file): skipped with a warning', async () => {
    restore = afterLstatOf('secret', async (path) => {
      await rename(path, join(tmp.dir, 'secret.moved'))
      await writeFile(join(root, 'a', 'secret'), 'OUTSIDE SECRET')
    })
    const files = await archiveFiles(new LocalSource('src', root, [], context))
    expect([...files.values()]).not.to.include('OUTSIDE SECRET')
    expect(warnings.join('\n')).to.match(/skipped a\/secret: it changed/)
  })

  it('an unchanged tree is archived whole without warnings', async () => {
    const files = await archiveFiles(new LocalSource('src', root, [], context))
    expect(Object.fromEntries(files)).to.deep.equal({ 'src/a/secret': 'inside content', 'src/z.txt': 'last file' })
    expect(warnings).to.deep.equal([])
  })
})
