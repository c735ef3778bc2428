/**
 * The package's sources import one another without a circle (madge --circular agrees), between files
 * and between folders, and the errors module sits at the bottom: every folder imports it, it imports nothing of the package.
 */
import { fileURLToPath } from 'node:url'

import { expect } from 'chai'

import { findCircles, folderGraph, readImportGraph, relativeSpecifiers, type ImportGraph } from './support/importGraph.js'

const SRC = fileURLToPath(new URL('../src/', import.meta.url))

describe('the import graph of src/', () => {
  let graph: ImportGraph
  before(async () => {
    graph = await readImportGraph(SRC)
  })

  it('finds the imports it walks (static, type-only, re-exports, dynamic)', () => {
    const source = [
      "import { a } from './a.js'",
      "import type { B } from '../b/b.js'",
      "export * from './c.js'",
      "import './d.js'",
      "const e = await import('./e.js')",
      "import { f } from 'payload'",
    ].join('\n')
    expect(relativeSpecifiers(source)).to.deep.equal(['./a.js', '../b/b.js', './c.js', './d.js', './e.js'])
    expect(graph.size, 'source files read').to.be.greaterThan(50)
    expect(graph.get('plugin.ts'), "plugin.ts's imports").to.include('collections/withHostData.ts')
  })

  it('reports a circle when there is one', () => {
    const circular: ImportGraph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ])
    expect(findCircles(circular)).to.deep.equal([['a.ts', 'b.ts', 'c.ts', 'a.ts']])
  })

  it('has no circle', () => {
    expect(findCircles(graph)).to.deep.equal([])
  })

  it('has no circle between its folders either: each folder imports only folders below it', () => {
    expect(findCircles(folderGraph(graph)).map((circle) => circle.join(' → '))).to.deep.equal([])
  })

  it('has the errors at the bottom: errors.ts imports nothing of the package, and no folder reaches into endpoints/ for them', () => {
    expect(graph.get('errors.ts')).to.deep.equal([])
    const intoEndpoints = [...graph].filter(
      ([file, targets]) => !/^(endpoints\/|plugin\.ts|collections\/)/.test(file) && targets.some((t) => t.startsWith('endpoints/')),
    )
    expect(intoEndpoints.map(([file]) => file)).to.deep.equal([])
  })
})
