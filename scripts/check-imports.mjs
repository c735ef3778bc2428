#!/usr/bin/env node
// `node scripts/check-imports.mjs [srcDir]`: lists the imports between the top-level folders of the
// backup daemon's `src/` (default `backup-daemon/src`) and exits 1 when they form a cycle. The folders are
// layers (sources and storages below the engine, the engine below the server and the CLI); a cycle means a
// lower folder reached up, which is how the daemon's middle became one tangle (issue 26).
// Relative imports only (`./`, `../`), static, dynamic and `export … from` alike; type-only imports count
// too, because they tie the folders together just the same for a reader. `--json` prints the graph.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

const args = process.argv.slice(2)
const json = args.includes('--json')
const root = resolve(args.find((a) => !a.startsWith('--')) ?? new URL('../backup-daemon/src', import.meta.url).pathname)

/** Every .ts/.tsx file under `dir`. */
function sourceFiles(dir) {
  const found = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path))
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) found.push(path)
  }
  return found
}

// `from '…'`, `import '…'`, `import('…')`; comments are stripped first so a quoted example does not count.
const importPattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g

/** The top-level folder of a file under `root`; a file directly in `root` is its own node (e.g. `index.ts`). */
function layerOf(file) {
  return relative(root, file).split(sep)[0]
}

/** Folder → folder → the import lines that make the edge (first few, for the message). */
export function folderGraph() {
  const edges = new Map()
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    const from = layerOf(file)
    for (const [, specifier] of text.matchAll(importPattern)) {
      if (!specifier.startsWith('.')) continue
      const target = resolve(dirname(file), specifier)
      if (!target.startsWith(root + sep)) continue
      const to = layerOf(target)
      if (to === from) continue
      if (!edges.has(from)) edges.set(from, new Map())
      const why = edges.get(from)
      if (!why.has(to)) why.set(to, [])
      why.get(to).push(`${relative(root, file)} → ${specifier}`)
    }
  }
  return edges
}

/** Every elementary cycle's strongly connected component with more than one folder (Tarjan). */
export function cycles(edges) {
  let index = 0
  const indices = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const components = []
  const visit = (node) => {
    indices.set(node, index)
    low.set(node, index)
    index += 1
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!indices.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), indices.get(next)))
    }
    if (low.get(node) === indices.get(node)) {
      const component = []
      let member
      do {
        member = stack.pop()
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1) components.push(component.sort())
    }
  }
  for (const node of [...edges.keys()].sort()) if (!indices.has(node)) visit(node)
  return components
}

const edges = folderGraph()
const tangles = cycles(edges)
if (json) {
  const plain = Object.fromEntries([...edges].map(([from, to]) => [from, Object.fromEntries(to)]))
  console.log(JSON.stringify({ edges: plain, cycles: tangles }, null, 2))
} else {
  for (const [from, to] of [...edges].sort()) console.log(`${from} → ${[...to.keys()].sort().join(', ')}`)
  for (const component of tangles) {
    console.log(`\ncycle among ${component.join(', ')}:`)
    for (const from of component)
      for (const [to, lines] of edges.get(from) ?? [])
        if (component.includes(to)) console.log(`  ${from} → ${to}: ${lines.slice(0, 3).join('; ')}${lines.length > 3 ? ` (+${lines.length - 3})` : ''}`)
  }
}
process.exitCode = tangles.length > 0 ? 1 : 0
