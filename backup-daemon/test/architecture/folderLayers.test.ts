/**
 * @module test/architecture/folderLayers
 * Issue 26: the top-level folders of `src/` form a DAG (a lower folder never imports a higher one),
 * checked by `scripts/check-imports.mjs` at the repository root, run as a developer runs it. A second case
 * gives the script a tree with a two-folder cycle, so a script that never fails could not pass here.
 */
import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tempDir } from '../engine/helpers.js'

const script = fileURLToPath(new URL('../../../scripts/check-imports.mjs', import.meta.url))
const daemonSrc = fileURLToPath(new URL('../../src', import.meta.url))

function checkImports(...args: string[]) {
  const run = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' })
  return { code: run.status, out: run.stdout + run.stderr }
}

describe('architecture: the top-level folders of backup-daemon/src form a DAG', function () {
  this.timeout(20_000)

  it('scripts/check-imports.mjs finds no cycle between the folders of src/', function () {
    const { code, out } = checkImports(daemonSrc)
    expect(out, out).not.to.include('cycle among')
    expect(code, out).to.equal(0)
    // The graph it checked is the real one: the server sits above the engine, the engine above the sources.
    expect(out).to.match(/^server → .*\bengine\b/m)
    expect(out).to.match(/^engine → .*\bsources\b/m)
    // The composition root wires the engine and the tasks; the engine itself never reaches the tasks (no cycle needed to be wrong).
    expect(out).to.match(/^daemon → .*\bengine\b.*\btasks\b/m)
    expect(out).to.match(/^cli → .*\bdaemon\b/m)
    expect(out).not.to.match(/^engine → .*\b(tasks|daemon|server|cli)\b/m)
  })

  it('fails and names the folders and the imports when two folders import each other', async function () {
    const temp = await tempDir()
    after(() => temp.remove())
    const root = temp.dir
    await mkdir(join(root, 'lower'))
    await mkdir(join(root, 'upper'))
    await writeFile(join(root, 'lower', 'a.ts'), "import type { B } from '../upper/b.js'\nexport type A = B\n")
    await writeFile(join(root, 'upper', 'b.ts'), "import { a } from '../lower/a.js'\nexport type B = typeof a\n")
    const { code, out } = checkImports(root)
    expect(code, out).to.equal(1)
    expect(out).to.include('cycle among lower, upper')
    expect(out).to.include('lower/a.ts → ../upper/b.js')
    expect(out).to.include('upper/b.ts → ../lower/a.js')
  })
})
