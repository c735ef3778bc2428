/**
 * Everything a reader of the READMEs needs is in the repository: every relative link of a README (and of
 * the documents under `docs/`) names a file or folder of the repository, and no README points outside it
 * (the design documents once lived in a `../shared/` folder beside the checkout).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

import { expect } from 'chai'

const repoRoot = new URL('..', import.meta.url).pathname
const documents = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*README.md', 'docs/*.md'], {
  cwd: repoRoot,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && existsSync(path.join(repoRoot, file)))

/** Relative targets of markdown links `[text](target)` and of backticked documents that start with `../` (`../x.md`). */
function relativeTargets(text: string): string[] {
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)
  const quoted = [...text.matchAll(/`(\.\.\/[^`\s]+\.md)`/g)].map((m) => m[1]!)
  return [...links, ...quoted].filter((target) => !/^([a-z]+:|#)/i.test(target)).map((target) => target.replace(/#.*$/, ''))
}

describe('README links stay inside the repository', () => {
  it('finds the READMEs and docs', () => {
    expect(documents).to.include.members(['README.md', 'plugin-storage/README.md', 'plugin-openapi/README.md', 'docs/DESIGN.md'])
  })

  it('every relative link names a file of the repository', () => {
    const broken: string[] = []
    let checked = 0
    for (const file of documents) {
      const dir = path.dirname(path.join(repoRoot, file))
      for (const target of relativeTargets(readFileSync(path.join(repoRoot, file), 'utf8'))) {
        checked++
        const resolved = path.resolve(dir, target)
        if (!resolved.startsWith(repoRoot) || !existsSync(resolved)) broken.push(`${file}: ${target}`)
      }
    }
    expect(checked, 'links checked').to.be.greaterThan(10)
    expect(broken).to.deep.equal([])
  })

  it('no README refers to a shared/ folder outside the repository', () => {
    for (const file of documents) expect(readFileSync(path.join(repoRoot, file), 'utf8'), file).not.to.match(/(^|[\s`(])(\.\.\/)*shared\//m)
  })
})
