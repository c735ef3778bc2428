/**
 * The fixture's description passes @redocly/openapi-core lint (recommended rules, 0 errors) and
 * @readme/openapi-parser validation (OpenAPI 3.1 schema + duplicate operationIds, parameters, ...).
 */
import { validate } from '@readme/openapi-parser'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { expect } from 'chai'
import { stringify } from 'yaml'

import { lintDocument } from './conformance/lintDocument.js'
import { fixtureDocument } from './support/fixtureDocument.js'

describe('validity of the description (fixture config)', function () {
  this.timeout(60_000)

  it('passes @redocly/openapi-core lint with 0 errors', async () => {
    const doc = await fixtureDocument()
    const config = await createConfig({ extends: ['recommended'] })
    const problems = await lintFromString({ source: stringify(doc, { aliasDuplicateObjects: false }), absoluteRef: 'openapi.yaml', config })
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)
    const warnings = problems.filter((p) => p.severity === 'warn')
    console.log(`      redocly: ${errors.length} errors, ${warnings.length} warnings (${[...new Set(warnings.map((w) => w.ruleId))].join(', ')})`)
    expect(errors).to.deep.equal([])
  })

  it('lints clean with the redocly and spectral command lines (0 errors)', async function () {
    // Two linter processes through npx: 15-20 s alone, past a minute when the cores are shared (two test lanes).
    this.timeout(180_000)
    for (const result of lintDocument(await fixtureDocument())) expect(result.errors, result.linter).to.deep.equal([])
  })

  it('passes @readme/openapi-parser validation', async () => {
    const doc = await fixtureDocument()
    const result = await validate(structuredClone(doc) as never)
    expect(result.valid, JSON.stringify(result).slice(0, 2000)).to.equal(true)
  })

  it('is valid with every filter off and with the minimal set of options', async () => {
    for (const options of [{ includeAuth: false, includeVersions: false, includeJobs: false }, { includeSystem: true }]) {
      const result = await validate(structuredClone(await fixtureDocument(options)) as never)
      expect(result.valid, JSON.stringify(result).slice(0, 2000)).to.equal(true)
    }
  })
})
