/**
 * Issue 37, "every legal name restores": anything a Linux file system allows in a name (a backslash, a
 * newline or another control character, bytes that are not UTF-8, a leading `-`, 255-byte names, NFC and
 * NFD forms side by side, deep paths), with odd modes and times before 1970 or far ahead, symbolic links
 * inside and out, and empty folders, is backed up by the local source (its tar worker and its batches) and
 * restored byte-exact by `extractTo`; GNU tar reads our archives the same, and we read GNU tar's (its gnu
 * and posix formats). Trees are generated with fast-check; `HOSTILE_NAMES_RUNS` runs more (its seed is
 * printed), and every seed that once failed is kept below as a fixed case.
 */
import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, lstatSync, lutimesSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import fc from 'fast-check'
import { createArchive } from '../../src/archive/createArchive.js'
import { extractTo } from '../../src/restore/extractTo.js'
import { LocalSource } from '../../src/sources/local/index.js'
import { encodeName } from '../../src/tar/byteNames.js'
import { parseRecord } from '../../src/tar/snapshotRecord.js'
import { tempDir } from '../engine/helpers.js'

const context = { log: () => {} }

/** What a tree holds, keyed by each path's bytes (hex): type, mode, mtime (s), content digest or link target. */
type Shape = Map<string, string>

const bytesOf = (parts: Buffer[]) => Buffer.concat(parts.flatMap((part, i) => (i ? [Buffer.from('/'), part] : [part])))

function shapeOf(root: string): Shape {
  const shape: Shape = new Map()
  const walk = (parts: Buffer[]) => {
    const dir = bytesOf([Buffer.from(root), ...parts])
    for (const entry of readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })) {
      const path = [...parts, entry.name]
      const full = bytesOf([Buffer.from(root), ...path])
      const info = lstatSync(full)
      const time = Math.floor(info.mtimeMs / 1000)
      const key = bytesOf(path).toString('hex')
      if (info.isSymbolicLink()) shape.set(key, `link ${time} -> ${readlinkSync(full, { encoding: 'buffer' }).toString('hex')}`)
      else if (info.isDirectory()) {
        shape.set(key, `dir ${(info.mode & 0o7777).toString(8)} ${time}`)
        walk(path)
      } else shape.set(key, `file ${(info.mode & 0o7777).toString(8)} ${time} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`)
    }
  }
  walk([])
  return shape
}

/** Readable differences between two shapes (paths shown as escaped bytes). */
function differences(expected: Shape, actual: Shape): string[] {
  const show = (key: string) => JSON.stringify(Buffer.from(key, 'hex').toString('latin1'))
  const out: string[] = []
  for (const [key, value] of expected) if (actual.get(key) !== value) out.push(`${show(key)}: ${value} != ${actual.get(key) ?? 'missing'}`)
  for (const key of actual.keys()) if (!expected.has(key)) out.push(`${show(key)}: extra`)
  return out
}

// Names: any bytes but NUL and '/', biased toward what breaks code that assumes UTF-8 or shell-safe names.
const hostileByte = fc.oneof(
  fc.constantFrom(0x5c, 0x0a, 0x0d, 0x09, 0x1b, 0x7f, 0x20, 0x2d, 0x2e, 0x22, 0x27, 0x2a, 0x3f, 0x5b),
  fc.integer({ min: 0x80, max: 0xff }),
  fc.integer({ min: 0x01, max: 0x7f }).filter((b) => b !== 0x2f),
)
const utf8Word = fc.constantFrom('café', 'cafe\u0301', 'Ærø', '日本語', '😀', '-rf', '--help', ' lead', 'trail ', 'back\\slash', 'new\nline')
const nameBytes = fc
  .oneof(
    { weight: 3, arbitrary: fc.array(hostileByte, { minLength: 1, maxLength: 12 }).map((b) => Buffer.from(b)) },
    { weight: 3, arbitrary: utf8Word.map((w) => Buffer.from(w)) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 255 }).map((n) => Buffer.alloc(n, 0x61 + (n % 26))) },
  )
  .filter((b) => !b.equals(Buffer.from('.')) && !b.equals(Buffer.from('..')))

const modeOfFile = fc.constantFrom(0o644, 0o600, 0o755, 0o444, 0o640, 0o000, 0o777)
const modeOfDir = fc.constantFrom(0o755, 0o700, 0o555, 0o1777, 0o750)
// Whole seconds from 1901 to 2262 (before 1970 and past 2242 take a PAX record).
const time = fc.integer({ min: -2_147_483_648, max: 9_200_000_000 })

interface FileNode {
  kind: 'file'
  name: Buffer
  mode: number
  mtime: number
  content: Uint8Array
}
interface LinkNode {
  kind: 'link'
  name: Buffer
  mtime: number
  target: Buffer
}
interface DirNode {
  kind: 'dir'
  name: Buffer
  mode: number
  mtime: number
  children: TreeNode[]
}
type TreeNode = FileNode | LinkNode | DirNode

const file = fc.record({ kind: fc.constant('file' as const), name: nameBytes, mode: modeOfFile, mtime: time, content: fc.uint8Array({ maxLength: 600 }) })
const link = fc.record({
  kind: fc.constant('link' as const),
  name: nameBytes,
  mtime: time,
  target: fc.oneof(nameBytes, fc.constantFrom(Buffer.from('/etc/passwd'), Buffer.from('../..'), Buffer.from('a/b\\c'))),
})
const tree = fc.letrec<{ dir: DirNode; node: TreeNode }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, file, link, tie('dir')),
  dir: fc.record({
    kind: fc.constant('dir' as const),
    name: nameBytes,
    mode: modeOfDir,
    mtime: time,
    children: fc.uniqueArray(tie('node'), { maxLength: 5, selector: (n) => n.name.toString('hex') }),
  }),
})).dir

/** Writes `node`'s children below `root` (bytes paths); folder times and modes last, deepest first. */
function writeTree(root: Buffer, node: DirNode) {
  const folders: [Buffer, DirNode][] = []
  const write = (dir: Buffer, children: TreeNode[]) => {
    for (const child of children) {
      const path = bytesOf([dir, child.name])
      if (child.kind === 'dir') {
        mkdirSync(path)
        write(path, child.children)
        folders.push([path, child])
      } else if (child.kind === 'file') {
        writeFileSync(path, child.content)
        chmodSync(path, child.mode)
        utimesSync(path, child.mtime, child.mtime)
      } else {
        symlinkSync(child.target, path)
        lutimesSync(path, child.mtime, child.mtime)
      }
    }
  }
  write(root, node.children)
  for (const [path, dir] of folders) {
    chmodSync(path, dir.mode)
    utimesSync(path, dir.mtime, dir.mtime)
  }
}

function tarTool(args: string[]) {
  const run = spawnSync('tar', args, { encoding: 'buffer' })
  if (run.error) throw new Error(`GNU tar is needed for this test (apt-get install -y tar): ${run.error.message}`)
  if (run.status !== 0) throw new Error(`tar ${args.join(' ')}: ${run.stderr.toString()}`)
}

describe('restore: every legal name restores byte-exact (generated trees, local source, extractTo, GNU tar)', function () {
  this.timeout(300_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let counter = 0
  before(async () => {
    tmp = await tempDir('bd-names-')
  })
  after(() => tmp.remove())

  /** One generated tree through every way in and out; throws listing what differs. */
  async function roundTrip(node: DirNode) {
    const case_ = join(tmp.dir, `case${counter++}`)
    const source = join(case_, 'src')
    mkdirSync(source, { recursive: true })
    writeTree(Buffer.from(source), node)
    const expected = shapeOf(source)
    try {
      for (const tarBuilder of ['worker', 'batches'] as const) {
        const archive = await buffer(
          createArchive([new LocalSource('t', source, [], context, { tarBuilder })], { compression: 'tar', signal: new AbortController().signal }),
        )
        // Ours back: every entry below `t/`.
        const ours = join(case_, `ours-${tarBuilder}`)
        let record: Buffer | undefined
        await extractTo(Readable.from([archive]), ours, { onRecord: (bytes) => (record = bytes) })
        expect(differences(expected, shapeOf(join(ours, 't'))), `extractTo of the ${tarBuilder} archive`).to.deep.equal([])
        // The record names every file by its exact bytes (a drill compares with it).
        const recorded = parseRecord(record!).files.map(([name, size]) => `${encodeName(name.slice(2)).toString('hex')} ${size}`)
        const files = [...expected]
          .filter(([, value]) => value.startsWith('file '))
          .map(([key]) => `${key} ${lstatSync(bytesOf([Buffer.from(source), Buffer.from(key, 'hex')])).size}`)
        expect(recorded.sort()).to.deep.equal(files.sort())
        // GNU tar reads our archive the same (as root it restores modes; `-p` says so anyway).
        const archiveFile = join(case_, `ours-${tarBuilder}.tar`)
        writeFileSync(archiveFile, archive)
        const gnu = join(case_, `gnu-${tarBuilder}`)
        mkdirSync(gnu)
        tarTool(['-xpf', archiveFile, '-C', gnu, '--exclude=.backup-daemon'])
        expect(differences(expected, shapeOf(join(gnu, 't'))), `GNU tar's extract of the ${tarBuilder} archive`).to.deep.equal([])
      }
      // And GNU tar's own archives (both formats) read by ours.
      for (const format of ['gnu', 'posix']) {
        const archiveFile = join(case_, `gnu.${format}.tar`)
        tarTool([`--format=${format}`, '-cf', archiveFile, '-C', source, '.'])
        const ours = join(case_, `from-gnu-${format}`)
        await extractTo(Readable.from([readFileSync(archiveFile)]), ours)
        const restored = shapeOf(ours)
        expect(differences(expected, restored), `extractTo of GNU tar's ${format} archive`).to.deep.equal([])
      }
    } finally {
      // Folders made read-only by the tree are made writable again so they can be removed.
      spawnSync('chmod', ['-R', 'u+rwx', case_])
      await rm(case_, { recursive: true, force: true })
    }
  }

  it('fixed cases: the names the issue reported, and seeds that once failed', async () => {
    const fixed: DirNode = {
      kind: 'dir',
      name: Buffer.from('root'),
      mode: 0o755,
      mtime: 0,
      children: [
        { kind: 'file', name: Buffer.from('caf\\\xc3\xa9 file.txt', 'latin1'), mode: 0o644, mtime: 1_700_000_000, content: Buffer.from('x') },
        { kind: 'file', name: Buffer.from([0x66, 0xff, 0xfe, 0x0a, 0x5c]), mode: 0o600, mtime: -86_400, content: Buffer.from('not utf-8') },
        { kind: 'file', name: Buffer.from('-rf'), mode: 0o755, mtime: 9_000_000_000, content: Buffer.alloc(0) },
        { kind: 'file', name: Buffer.alloc(255, 0x62), mode: 0o644, mtime: 1, content: Buffer.from('long') },
        { kind: 'file', name: Buffer.from('café'), mode: 0o644, mtime: 2, content: Buffer.from('nfc') },
        { kind: 'file', name: Buffer.from('cafe\u0301'), mode: 0o644, mtime: 3, content: Buffer.from('nfd') },
        { kind: 'link', name: Buffer.from('out'), mtime: 4, target: Buffer.from('/etc/passwd') },
        { kind: 'link', name: Buffer.from([0x6c, 0xe9]), mtime: 5, target: Buffer.from([0xe9, 0x5c, 0x0a]) },
        { kind: 'dir', name: Buffer.from('empty\\dir'), mode: 0o1777, mtime: 6, children: [] },
        {
          kind: 'dir',
          name: Buffer.from('deep'),
          mode: 0o555,
          mtime: 7,
          children: [
            {
              kind: 'dir',
              name: Buffer.alloc(250, 0x64),
              mode: 0o700,
              mtime: 8,
              children: [{ kind: 'file', name: Buffer.alloc(250, 0x65), mode: 0o444, mtime: 9, content: Buffer.from('deep') }],
            },
          ],
        },
      ],
    }
    await roundTrip(fixed)
  })

  it('generated trees (fast-check)', async () => {
    const runs = Number(process.env.HOSTILE_NAMES_RUNS ?? 12)
    const seed = Number(process.env.HOSTILE_NAMES_SEED ?? Date.now() % 2 ** 31)
    if (process.env.HOSTILE_NAMES_RUNS) console.log(`      hostile names: ${runs} runs, seed ${seed} (HOSTILE_NAMES_SEED=${seed} repeats them)`)
    await fc.assert(
      fc.asyncProperty(tree, async (node) => roundTrip(node)),
      { numRuns: runs, seed, endOnFailure: true },
    )
  })
})
