/**
 * Response conformance of the fixture CMS (`test/fixture/fixtureConfig.ts`: every field type, localization,
 * drafts with autosave, trash, three auth collections, a custom ID, globals, jobs, a custom `routes.api`), the
 * same engine as `responseConformance.test.ts` (generated valid and invalid requests, every answer checked
 * against the document) on the CMS this package's other tests use. It also runs on Payload 4
 * (`test/payload4-openapi.e2e.test.ts` at the repository root), where the fixture gains the routes 4.x mounts.
 *
 * Bounded: `CONFORMANCE_RUNS` valid and as many invalid cases per operation (default 2 here, about 450 requests:
 * the dev-app suite runs 8 on the CMS a user starts), from `CONFORMANCE_SEED` (default fixed; printed).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { expect } from 'chai'

import { payloadTarget, uploadForm } from './conformance/payloadTarget.js'
import { printReport, runConformance, summarizeFindings } from './conformance/runConformance.js'
import { sampleFiles } from './conformance/sampleFiles.js'
import { API_ROUTE, buildFixtureConfig } from './fixture/fixtureConfig.js'
import { serveCms, type LiveCms } from './support/liveCms.js'

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 2)
const SEED = Number(process.env.CONFORMANCE_SEED ?? 20261201)

describe('response conformance of the fixture CMS (generated requests, every answer checked)', function () {
  this.timeout(5 * 60_000)
  let cms: LiveCms

  before(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'openapi-response-conformance-'))
    // Its own Payload instance: the generated writes never touch the CMS the other test files share.
    cms = await serveCms(await buildFixtureConfig({ dataDir }), dataDir, 'response-conformance')
  })
  after(async () => {
    await cms?.close()
  })

  it('the fixture CMS answers every documented operation as its document says', async () => {
    const api = `${cms.url}${API_ROUTE}`
    const admin = { email: 'admin@example.com', password: 'Admin-pass-1' }
    const registered = await fetch(`${api}/users/first-register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(admin),
    })
    expect(registered.status, await registered.clone().text()).to.equal(200)
    const doc = await (await fetch(`${api}/openapi.json`)).json()
    const samples = await sampleFiles()
    let made = 0
    const target = await payloadTarget({
      name: 'fixture CMS',
      origin: cms.url,
      apiRoute: API_ROUTE,
      doc,
      login: { collection: 'users', ...admin },
      fixtures: {
        users: () => ({ email: `fixture-${++made}@example.com`, password: `Fixture-pass-${made}` }),
        editors: () => ({ username: `editor-${++made}`, password: `Fixture-pass-${made}` }),
        members: () => ({ email: `member-${++made}@example.com`, password: `Fixture-pass-${made}` }),
        categories: () => ({ title: `Category ${++made}` }),
        media: () => uploadForm({ name: `fixture-${++made}.png`, type: 'image/png', bytes: samples.png }, { alt: 'fixture' }),
        tags: () => ({ id: `tag-${++made}`, label: 'fixture' }),
        posts: () => ({ title: `Fixture ${++made}`, _status: 'published' }),
      },
      files: [{ name: 'sample.png', type: 'image/png', bytes: samples.png }],
    })
    const report = await runConformance(target, { seed: SEED, runs: RUNS, only: process.env.CONFORMANCE_ONLY })
    printReport(report)
    expect(summarizeFindings(report.findings)).to.deep.equal([])
    if (!process.env.CONFORMANCE_ONLY) expect(report.operations).to.be.greaterThan(120)
  })
})
