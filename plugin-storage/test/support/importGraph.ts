/**
 * @module test/support/importGraph
 * The import graph of a source folder, read from the files themselves (static `import`/`export … from`,
 * side-effect `import '…'` and dynamic `import('…')`, type-only imports included, as madge counts them),
 * and its circles. Only relative specifiers are followed: packages are outside the folder.
 */
import { readdir, readFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/** File (relative to the root, `/`-separated) → the files of the same root it imports. */
export type ImportGraph = Map<string, string[]>

const SPECIFIER = /(?:^|[\s;{}])(?:import|export)\s[^'"]*?\sfrom\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** The relative specifiers of a module's source. */
export function relativeSpecifiers(source: string): string[] {
  const found: string[] = []
  for (const match of source.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2] ?? match[3]
    if (specifier?.startsWith('.')) found.push(specifier)
  }
  return found
}

/** `./x.js` written for `./x.ts` or `./x.tsx` (NodeNext style), or a folder's `index.ts`. */
function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier)
  const stem = base.replace(/\.(m?js|jsx)$/, '')
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]
  return candidates.find((candidate) => /\.tsx?$/.test(candidate) && existsSync(candidate))
}

/** Reads every `.ts`/`.tsx` file under `root` and the imports between them. */
export async function readImportGraph(root: string): Promise<ImportGraph> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true })
  const files = entries.filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')).map((e) => join(e.parentPath, e.name))
  const name = (file: string) => relative(root, file).split('\\').join('/')
  const graph: ImportGraph = new Map()
  for (const file of files) {
    const targets = relativeSpecifiers(await readFile(file, 'utf8'))
      .map((specifier) => resolveSpecifier(file, specifier))
      .filter((target): target is string => target !== undefined && !relative(root, target).startsWith('..'))
    graph.set(name(file), [...new Set(targets.map(name))])
  }
  return graph
}

/** Every circle of the graph, each once, as the path that closes it (`a → b → a`); empty for a DAG. */
export function findCircles(graph: ImportGraph): string[][] {
  const circles: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (node: string): void => {
    state.set(node, 'open')
    path.push(node)
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next])
      else if (!state.has(next)) visit(next)
    }
    path.pop()
    state.set(node, 'done')
  }
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node)
  return circles
}

/** The graph between top-level folders (a file at the root is its own node, without its extension). */
export function folderGraph(graph: ImportGraph): ImportGraph {
  const folderOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file.replace(/\.tsx?$/, ''))
  const folders: ImportGraph = new Map()
  for (const [file, targets] of graph) {
    const from = folderOf(file)
    const edges = new Set(folders.get(from) ?? [])
    for (const target of targets) if (folderOf(target) !== from) edges.add(folderOf(target))
    folders.set(from, [...edges])
  }
  return folders
}
