/**
 * @module test/architecture/kindNames
 * Issue 26: a database kind is one folder under `src/sources/` plus one registry line, restore included.
 * So no kind's name appears as a string literal in code outside `src/sources/` and the original service's
 * config aliases (`config/snaprAliases.ts`): restore targets, restore tasks, progress, the CLI and the
 * config check loop over the registry. Nor does a check of the `local` source's type (`source.type ===
 * 'local'`): a file source's needs are declared by its factory too. Comments do not count (a module header
 * may name the kinds it is about); prose inside a longer string does not either.
 */
import { expect } from 'chai'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const src = fileURLToPath(new URL('../../src', import.meta.url))

/** Where kind names belong: the kinds' own folders and the original service's spellings. */
const allowed = [`sources${sep}`, join('config', 'snaprAliases.ts')]
const kindName = /(['"`])(postgresql|mysql|mariadb|sqlite|redis|mongodb)\1/g
const localSourceCheck = /\b(?:s|source|src)\.type\s*[!=]==?\s*(['"`])local\1/g

/** Code without comments (block and line; a `//` inside a string such as a URL is kept). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

/** Every `file:line: text` in `text` that names a kind or checks for the local source. */
function kindNamesIn(file: string, text: string): string[] {
  const found: string[] = []
  code(text)
    .split('\n')
    .forEach((line, index) => {
      if (line.match(kindName) || line.match(localSourceCheck)) found.push(`${file}:${index + 1}: ${line.trim()}`)
    })
  return found
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })
}

describe('architecture: database kinds are named only in their own folders (issue 26)', function () {
  it('finds a kind name or a local-source check in a sample, and not in comments or prose', function () {
    const sample = [
      "/** the 'sqlite' source */",
      "if (source.type === 'redis') return // 'mongodb' in a comment",
      "const text = 'restores sqlite, postgresql and mysql sources'",
      "const trees = sources.filter((s) => s.type === 'local')",
      'const kinds = ["mariadb"]',
    ].join('\n')
    expect(kindNamesIn('x.ts', sample)).to.deep.equal([
      "x.ts:2: if (source.type === 'redis') return",
      "x.ts:4: const trees = sources.filter((s) => s.type === 'local')",
      'x.ts:5: const kinds = ["mariadb"]',
    ])
  })

  it('no file of src/ outside sources/ and config/snaprAliases.ts names a database kind or checks for the local source', function () {
    const files = sourceFiles(src)
      .map((path) => relative(src, path))
      .filter((file) => !allowed.some((place) => file.startsWith(place) || file === place))
    expect(files.length, 'files scanned').to.be.greaterThan(100)
    const found = files.flatMap((file) => kindNamesIn(file, readFileSync(join(src, file), 'utf8')))
    expect(found, found.join('\n')).to.deep.equal([])
  })
})
