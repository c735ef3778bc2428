/**
 * The `payload-openapi` command loads the project's `.env` as the `payload` command does (Payload's
 * `loadEnv`): a config that reads `process.env` gets the values of the `.env` in the folder it runs in.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { expect } from 'chai'

const run = promisify(execFile)
const bin = fileURLToPath(new URL('../bin/payload-openapi.mjs', import.meta.url))
const fixtureConfig = fileURLToPath(new URL('./fixture/fixtureConfig.ts', import.meta.url))

describe('the payload-openapi command and .env', function () {
  this.timeout(120_000)
  let project: string
  before(() => {
    project = mkdtempSync(join(tmpdir(), 'openapi-dotenv-'))
    writeFileSync(join(project, 'package.json'), '{ "private": true, "type": "module" }\n')
    writeFileSync(join(project, '.env'), 'OPENAPI_TITLE_FROM_ENV="Title from the .env file"\n')
    // A project's config that reads its settings from the environment, as Payload's templates do.
    writeFileSync(
      join(project, 'payload.config.ts'),
      `import { buildFixtureConfig } from ${JSON.stringify(fixtureConfig)}
if (!process.env.OPENAPI_TITLE_FROM_ENV) throw new Error('OPENAPI_TITLE_FROM_ENV is not set: .env was not loaded')
export default buildFixtureConfig({
  dataDir: ${JSON.stringify(join(project, 'data'))},
  plugin: { info: { title: process.env.OPENAPI_TITLE_FROM_ENV, version: '1.0.0' } },
})
`,
    )
  })
  after(() => rmSync(project, { force: true, recursive: true }))

  it('reads the .env of the folder it runs in before loading the config', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' }
    delete env.OPENAPI_TITLE_FROM_ENV
    const { stdout } = await run(process.execPath, [bin, '--config', 'payload.config.ts', '--out', 'openapi.json'], { cwd: project, env })
    expect(stdout).to.match(/wrote openapi\.json: \d+ operations/)
    const doc = JSON.parse(readFileSync(join(project, 'openapi.json'), 'utf8')) as { info: { title: string } }
    expect(doc.info.title).to.equal('Title from the .env file')
  })
})
