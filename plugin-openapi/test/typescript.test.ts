/**
 * openapi-typescript turns the description into types that compile under `tsc --strict`, and the types say
 * what the schemas say (a usage file that would not compile otherwise).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

import { expect } from 'chai'
import openapiTS, { astToString } from 'openapi-typescript'

import { fixtureDocument } from './support/fixtureDocument.js'

const run = promisify(execFile)
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

const usage = `import type { components, operations, paths } from './api.js'
type Post = components['schemas']['Posts']
type PostCreate = components['schemas']['PostsCreate']
// Reads: a relationship is an ID or the populated document.
const category: Post['category'] = 1
const populated: Post['category'] = { id: 1, title: 'x' } as components['schemas']['Categories']
// Bodies: IDs only; polymorphic relationships are {relationTo, value}.
const body: PostCreate = { title: 'Hello', category: 2, pinned: { relationTo: 'media', value: 3 }, content: [{ blockType: 'quote', text: 'q' }] }
// @ts-expect-error a populated document is not accepted in a body
const bad: PostCreate = { title: 'x', category: { id: 1 } }
type ListAnswer = operations['findPosts']['responses'][200]['content']['application/json']
const total: ListAnswer['totalDocs'] = 3
type Login = paths['/cms-api/users/login']['post']['requestBody']
export { category, populated, body, bad, total }
export type { Login }
`

describe('openapi-typescript', function () {
  this.timeout(120_000)
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'openapi-ts-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('generates types that compile with tsc --strict', async () => {
    const doc = await fixtureDocument()
    const ast = await openapiTS(doc as never)
    const source = astToString(ast)
    expect(source).to.include('PostsCreate')
    writeFileSync(join(dir, 'api.ts'), source)
    writeFileSync(join(dir, 'usage.ts'), usage)
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          skipLibCheck: true,
          noUnusedLocals: false,
        },
        files: ['api.ts', 'usage.ts'],
      }),
    )
    const result = await run(process.execPath, [tsc, '-p', dir]).catch((err: { stdout?: string; stderr?: string }) => ({
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? String(err),
    }))
    expect(`${result.stdout}${result.stderr}`.trim()).to.equal('')
  })
})
