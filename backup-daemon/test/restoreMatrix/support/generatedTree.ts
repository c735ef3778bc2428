/**
 * @module test/restoreMatrix/support/generatedTree
 * File trees made by `fast-check` with hostile-but-legal names and shapes (issue 37: "every legal name
 * restores"): backslashes, newlines, tabs and other control characters, invalid UTF-8 bytes, a leading `-`,
 * 255-byte names, the NFC and NFD forms of one word side by side, deep paths (below PATH_MAX), empty
 * folders, links (relative inside the tree, absolute to outside: stored, never followed), odd modes, old and
 * future mtimes. Names are bytes (`Buffer`): Node turns an invalid UTF-8 name into U+FFFD when it is a
 * string, so the tree is written and read back with Buffer paths only.
 */
import fc from 'fast-check'

/** Whole seconds since 1970 (tar keeps whole seconds). */
type Seconds = number

export type TreeNode =
  | { type: 'file'; name: Buffer; data: Buffer; mode: number; mtime: Seconds }
  | { type: 'dir'; name: Buffer; mode: number; mtime: Seconds; children: TreeNode[] }
  | { type: 'symlink'; name: Buffer; target: Buffer }

/** A generated tree: the folder's own mode and mtime, and what it holds. */
export interface Tree {
  mode: number
  mtime: Seconds
  children: TreeNode[]
}

const b = (text: string) => Buffer.from(text, 'utf8')

/** One piece of a name: each kind of hostile byte run the issue names, and ordinary words. */
const fragment: fc.Arbitrary<Buffer> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .constantFrom('a', 'file', 'report', 'x', 'Ünïcödé', '日本語', '📦', 'name with spaces', ' ', '.', '...', '~', '$HOME', '*', '?', "'", '"')
      .map(b),
  },
  { weight: 2, arbitrary: fc.constantFrom('\\', 'a\\b', '\\\\server\\share', 'C:\\x', '\\..\\').map(b) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 0x1f }).map((code) => Buffer.from([code])) },
  { weight: 1, arbitrary: fc.constantFrom('\n', '\t', '\r', '\x7f', '\x1b[31m', '\u2028', '\u202e', '\u200b', '\ufeff').map(b) },
  // Bytes that are not UTF-8: lone continuation bytes, a cut sequence, overlong forms, 0xfe/0xff.
  {
    weight: 2,
    arbitrary: fc.constantFrom([0x80], [0xbf], [0xc3], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xfe], [0xff, 0xfe]).map((bytes) => Buffer.from(bytes)),
  },
)

/** Bytes of a name: 1 to 255, no `/` or NUL, neither `.` nor `..`. */
const legal = (name: Buffer) =>
  name.length >= 1 && name.length <= 255 && !name.includes(0x2f) && !name.includes(0) && !['.', '..'].includes(name.toString('latin1'))

const joinedName: fc.Arbitrary<Buffer> = fc.array(fragment, { minLength: 1, maxLength: 5 }).map((parts) => Buffer.concat(parts))

/** A name exactly 255 bytes long, of 2-byte characters with one ASCII byte to make it odd. */
const longName: fc.Arbitrary<Buffer> = fc.constantFrom('é', 'ß', 'a').map((char) => {
  const unit = b(char)
  const name = Buffer.alloc(255, 'x')
  for (let at = 0; at + unit.length <= 254; at += unit.length) unit.copy(name, at)
  return name
})

export const nameArb: fc.Arbitrary<Buffer> = fc
  .oneof(
    { weight: 8, arbitrary: joinedName },
    { weight: 2, arbitrary: joinedName.map((name) => Buffer.concat([b('-'), name])) },
    { weight: 1, arbitrary: fc.constantFrom('-rf', '--help', '-', '--', '-n').map(b) },
    { weight: 1, arbitrary: longName },
  )
  .filter(legal)

const modeArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0o644, 0o600, 0o755, 0o640) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0o777 }) },
  { weight: 1, arbitrary: fc.constantFrom(0o000, 0o111, 0o222, 0o4755, 0o2755, 0o1777, 0o7777) },
)

/** Old (the 1970s), ordinary, and future (past 2038, past ustar's 8589934591 s) modification times. */
export const mtimeArb: fc.Arbitrary<Seconds> = fc.oneof(
  fc.integer({ min: 1, max: 300_000_000 }),
  fc.integer({ min: 1_000_000_000, max: 1_800_000_000 }),
  fc.integer({ min: 2_147_483_648, max: 9_999_999_999 }),
)

const bytesArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)) },
)

/** A link target: relative inside the tree (`up` steps at most the link's depth), or absolute to outside. */
const targetArb = (depth: number): fc.Arbitrary<Buffer> =>
  fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: depth }), nameArb).map(([up, name]) => Buffer.concat([b('../'.repeat(up)), name])),
    fc.tuple(nameArb, nameArb).map(([dir, name]) => Buffer.concat([dir, b('/'), name])),
    fc.constantFrom('/etc/passwd', '/nonexistent/target', '/', '/tmp').map(b),
    nameArb.map((name) => Buffer.concat([b('/nonexistent/'), name])),
  )

const byKey = (node: TreeNode) => node.name.toString('latin1')

function childrenArb(depth: number): fc.Arbitrary<TreeNode[]> {
  const file = fc.record({ type: fc.constant('file' as const), name: nameArb, data: bytesArb, mode: modeArb, mtime: mtimeArb })
  const link = fc.record({ type: fc.constant('symlink' as const), name: nameArb, target: targetArb(depth) })
  const leaf: fc.Arbitrary<TreeNode> = fc.oneof({ weight: 4, arbitrary: file }, { weight: 1, arbitrary: link })
  const node: fc.Arbitrary<TreeNode> =
    depth >= 3
      ? leaf
      : fc.oneof(
          { weight: 3, arbitrary: leaf },
          {
            weight: 1,
            arbitrary: fc
              .record({ name: nameArb, mode: modeArb, mtime: mtimeArb, children: fc.constant(null) })
              .chain((dir) => childrenArb(depth + 1).map((children) => ({ ...dir, type: 'dir' as const, children }))),
          },
        )
  return fc.uniqueArray(node, { selector: byKey, maxLength: depth === 0 ? 8 : 4 })
}

/** NFC and NFD of one word in one folder: two names a file system keeps apart (Linux compares bytes). */
const nfcNfdPair = fc.record({ data: bytesArb, mtime: mtimeArb }).map(({ data, mtime }): TreeNode[] => {
  const word = 'café-Ångström'
  return [
    { type: 'file', name: b(word.normalize('NFC')), data, mode: 0o644, mtime },
    { type: 'file', name: b(word.normalize('NFD')), data: Buffer.concat([data, b('nfd')]), mode: 0o644, mtime },
  ]
})

/** A chain of folders with long names ending in a file: paths of 1,000 to ~3,100 bytes (PATH_MAX is 4096). */
const deepChain = fc.tuple(fc.integer({ min: 4, max: 14 }), nameArb, mtimeArb).map(([levels, leafName, mtime]): TreeNode => {
  let node: TreeNode = { type: 'file', name: leafName, data: b('deep'), mode: 0o644, mtime }
  for (let level = levels; level > 0; level--) {
    const name = Buffer.alloc(200, String.fromCharCode(97 + (level % 26)))
    node = { type: 'dir', name, mode: 0o755, mtime: mtime + level, children: [node] }
  }
  return node
})

/** A whole tree: generated children, sometimes a deep chain, sometimes an NFC/NFD pair, sometimes an empty folder. */
export const treeArb: fc.Arbitrary<Tree> = fc
  .record({
    mode: fc.constantFrom(0o755, 0o750, 0o700, 0o1777, 0o2775),
    mtime: mtimeArb,
    children: childrenArb(0),
    deep: fc.option(deepChain, { freq: 2 }),
    pair: fc.option(nfcNfdPair, { freq: 2 }),
    empty: fc.option(fc.record({ name: nameArb, mode: modeArb, mtime: mtimeArb }), { freq: 2 }),
  })
  .map(({ mode, mtime, children, deep, pair, empty }) => {
    const all = [...children]
    const taken = new Set(all.map(byKey))
    const add = (node: TreeNode) => {
      if (!taken.has(byKey(node))) {
        taken.add(byKey(node))
        all.push(node)
      }
    }
    if (deep) add(deep)
    for (const node of pair ?? []) add(node)
    if (empty) add({ type: 'dir', ...empty, children: [] })
    return { mode, mtime, children: all }
  })

/** `count` trees of `seed` (the same seed gives the same trees). */
export function sampleTrees(seed: number, count: number): Tree[] {
  return fc.sample(treeArb, { seed, numRuns: count })
}

/**
 * One tree holding every class of name and shape at least once, so that every cell meets each of them
 * whatever the seed (the kept cases of the issue and of the seeds that failed).
 */
export function everyShapeTree(): Tree {
  const file = (name: Buffer | string, data = 'x', mode = 0o644, mtime = 1_600_000_000): TreeNode => ({
    type: 'file',
    name: typeof name === 'string' ? b(name) : name,
    data: b(data),
    mode,
    mtime,
  })
  const dir = (name: string, children: TreeNode[], mode = 0o755, mtime = 1_500_000_000): TreeNode => ({ type: 'dir', name: b(name), mode, mtime, children })
  return {
    mode: 0o755,
    mtime: 1_400_000_000,
    children: [
      // The issue's own case: `printf x > 'caf\xc3\xa9 file.txt'` with a backslash (legal on Linux).
      file(Buffer.from('caf\\xc3\\xa9 file.txt', 'latin1')),
      file('back\\slash.txt'),
      file('new\nline.txt'),
      file('tab\there.txt'),
      file('bell\x07and\x1b[31mescape'),
      file(Buffer.from([0x69, 0x6e, 0x76, 0x61, 0x6c, 0x69, 0x64, 0xff, 0xfe, 0x2e, 0x62, 0x69, 0x6e]), 'invalid utf-8'),
      file(Buffer.from([0xc3, 0x28]), 'cut sequence'),
      // Seed 42's case: a name without one ASCII byte. restic (Go's archive/tar) stores such a name in PAX and
      // leaves its ustar name field as the folder with a trailing slash, which reads as a folder.
      file('日本語', 'no ascii byte'),
      file('-rf'),
      file('--help'),
      file(Buffer.alloc(255, 'n'), '255 bytes'),
      file('é'.repeat(127) + 'x', '255 bytes of 2-byte characters'),
      file('café'.normalize('NFC'), 'nfc'),
      file('café'.normalize('NFD'), 'nfd'),
      file(' leading and trailing space ', 'spaces'),
      file('odd-mode', 'modes', 0o4751),
      file('no-permissions', 'modes', 0o000),
      file('old', 'old mtime', 0o644, 1),
      file('future', 'future mtime', 0o644, 4_102_444_800),
      file('far-future', 'beyond ustar', 0o644, 9_999_999_999),
      file('empty', ''),
      dir('empty folder', []),
      dir('folder with odd mtime', [file('inside', 'in')], 0o750, 86_400),
      dir('sticky', [], 0o1777, 1_234_567_890),
      dir('a\\b', [file('c\\d', 'nested backslashes')]),
      { type: 'symlink', name: b('relative-link'), target: b('folder with odd mtime/inside') },
      { type: 'symlink', name: b('dangling-link'), target: b('does not exist') },
      { type: 'symlink', name: b('absolute-link'), target: b('/etc/passwd') },
      { type: 'symlink', name: b('weird-target'), target: Buffer.from([0x2f, 0x74, 0x6d, 0x70, 0x2f, 0xff, 0x0a]) },
    ],
  }
}

/** Classes of names that `RESTORE_MATRIX_EXCLUDE` can leave out, to see what fails behind a known bug. */
export const nameClasses = {
  backslash: (name: Buffer) => name.includes(0x5c),
  'invalid-utf8': (name: Buffer) => !Buffer.from(name.toString('utf8')).equals(name),
  'no-ascii': (name: Buffer) => name.every((byte) => byte >= 0x80),
} as const

/** `tree` without the entries whose name (or link target) is of one of `classes`. */
export function withoutClasses(tree: Tree, classes: readonly string[]): Tree {
  const tests = classes.map((name) => {
    const test = nameClasses[name as keyof typeof nameClasses]
    if (!test) throw new Error(`RESTORE_MATRIX_EXCLUDE: no name class "${name}" (${Object.keys(nameClasses).join(', ')})`)
    return test
  })
  const hit = (name: Buffer) => tests.some((test) => test(name))
  const prune = (nodes: TreeNode[]): TreeNode[] =>
    nodes.flatMap((node): TreeNode[] => {
      if (hit(node.name) || (node.type === 'symlink' && hit(node.target))) return []
      return node.type === 'dir' ? [{ ...node, children: prune(node.children) }] : [node]
    })
  return { ...tree, children: prune(tree.children) }
}
