/**
 * `writeOpenAPIDocument` and the `payload-openapi` command write the description for codegen in CI (JSON or YAML),
 * with the options given to the plugin in that config.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { expect } from 'chai'
import { parse } from 'yaml'

import { writeOpenAPIDocument } from '../src/index.js'

const run = promisify(execFile)
const configPath = fileURLToPath(new URL('./fixture/payload.config.ts', import.meta.url))
const bin = fileURLToPath(new URL('../bin/payload-openapi.mjs', import.meta.url))

describe('writing the description to a file', function () {
  this.timeout(120_000)
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'openapi-write-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('writeOpenAPIDocument writes JSON with the plugin options of the config', async () => {
    const out = join(dir, 'nested', 'openapi.json')
    const doc = await writeOpenAPIDocument({ configPath, out })
    const written = JSON.parse(readFileSync(out, 'utf8'))
    expect(written).to.deep.equal(JSON.parse(JSON.stringify(doc)))
    expect(written.info.title).to.equal('Fixture CMS')
    expect(written.paths).to.have.property('/cms-api/posts')
    expect(written.paths).to.not.have.property('/cms-api/health') // excludeOperations from the plugin options
  })

  it('the payload-openapi command writes YAML and exits 0; bad usage exits 2', async () => {
    const out = join(dir, 'openapi.yaml')
    const { stdout } = await run(process.execPath, [bin, '--config', configPath, '--out', out])
    expect(stdout).to.match(/wrote .*openapi\.yaml: \d+ operations/)
    const doc = parse(readFileSync(out, 'utf8'))
    expect(doc.openapi).to.equal('3.1.0')
    expect(doc.components.schemas).to.have.property('PostsCreate')
    const bad = await run(process.execPath, [bin]).then(
      () => 0,
      (err: { code?: number }) => err.code,
    )
    expect(bad).to.equal(2)
  })
})
