/**
 * Response conformance of the running dev-app (`npm start`): every operation of the CMS's `/api/openapi.json`
 * and of the backup daemon's `/api/v1/openapi` is driven with requests generated from the document (valid ones,
 * boundary values among them, and invalid ones breaking one documented rule each), signed in as the printed
 * admins, and every answer must be documented: status, content type, body (JSON Schema 2020-12). The CMS core's
 * known failures to bad input are counted by name (`conformance/knownFailures.ts`), never skipped silently.
 *
 * Bounded: `CONFORMANCE_RUNS` valid and as many invalid cases per operation (default 8), from one seed
 * (`CONFORMANCE_SEED`, default fixed; printed). A longer run: `CONFORMANCE_RUNS=100 CONFORMANCE_SEED=$RANDOM`.
 * `CONFORMANCE_ONLY=<operationId>` drives one operation. The findings of the issue that asked for this suite are
 * kept below as fixed cases.
 */
import { expect } from 'chai'

import { cmsTarget, daemonTarget } from './conformance/devAppTargets.js'
import { lintDocument } from './conformance/lintDocument.js'
import { documentedOperations, type DocumentedOperation } from './conformance/requestCases.js'
import { ResponseChecker } from './conformance/responseCheck.js'
import { printReport, runConformance, summarizeFindings } from './conformance/runConformance.js'
import { sampleFiles } from './conformance/sampleFiles.js'
import type { Schema } from './conformance/schemaArbitrary.js'
import { startDevApp, type RunningDevApp } from './support/runningDevApp.js'

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 8)
const SEED = Number(process.env.CONFORMANCE_SEED ?? 20261201)

describe('response conformance of the running dev-app (CMS and backup daemon)', function () {
  // The first start in a fresh checkout builds the admin panel (minutes on two cores).
  this.timeout(20 * 60_000)
  let app: RunningDevApp
  let cmsDoc: Schema
  let daemonDoc: Schema

  before(async () => {
    app = await startDevApp(15 * 60_000)
    cmsDoc = await (await fetch(`${app.cmsUrl}/api/openapi.json`)).json()
    daemonDoc = await (await fetch(`${app.daemonUrl}/api/v1/openapi`)).json()
  })
  after(async () => {
    await app?.stop()
  })

  /** Sends one request and returns the problems the checker finds with the answer. */
  async function answerOf(doc: Schema, base: string, operationId: string, url: string, init: RequestInit = {}) {
    const d = documentedOperations(doc).find((o) => o.operationId === operationId) as DocumentedOperation
    expect(d, operationId).to.not.equal(undefined)
    const res = await fetch(`${base}${url}`, { redirect: 'manual', ...init })
    const answer = { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) }
    return { answer, problems: new ResponseChecker(doc).check(d, answer), body: () => JSON.parse(new TextDecoder().decode(answer.bytes)) }
  }

  it('the CMS answers every documented operation as its document says', async () => {
    const report = await runConformance(await cmsTarget(app, cmsDoc, await sampleFiles()), { seed: SEED, runs: RUNS, only: process.env.CONFORMANCE_ONLY })
    printReport(report)
    expect(summarizeFindings(report.findings)).to.deep.equal([])
    expect(report.operations).to.be.greaterThan(60)
  })

  it('the backup daemon answers every documented operation as its document says', async () => {
    const report = await runConformance(await daemonTarget(app, daemonDoc), { seed: SEED, runs: RUNS, only: process.env.CONFORMANCE_ONLY })
    printReport(report)
    expect(summarizeFindings(report.findings)).to.deep.equal([])
    // Every operation of the daemon's document, GET /jobs/{name}/restore-options included (issue 38).
    expect(report.operations).to.equal(27)
  })

  it('both documents lint clean: redocly (recommended) and spectral (spectral:oas), 0 errors, only the warnings the README justifies', () => {
    // The README ("Linting") says why each of these is left as a warning.
    const justified: Record<string, string[]> = {
      redocly: ['info-license', 'no-server-example.com', 'no-ambiguous-paths', 'operation-4xx-response', 'tag-description'],
      spectral: ['info-contact', 'info-description', 'operation-description'],
    }
    for (const [name, doc] of [
      ['CMS', cmsDoc],
      ['daemon', daemonDoc],
    ] as const) {
      for (const result of lintDocument(doc)) {
        console.log(`      ${name}, ${result.linter}: ${result.errors.length} errors, warnings ${JSON.stringify(result.warnings)}`)
        expect(result.errors, `${name} ${result.linter}`).to.deep.equal([])
        expect(
          Object.keys(result.warnings).filter((rule) => !justified[result.linter]!.includes(rule)),
          `${name} ${result.linter}`,
        ).to.deep.equal([])
      }
    }
  })

  it('fixed cases: the answers the document used to get wrong', async () => {
    const { token, user } = await loginAsAdmin(app)
    const auth = { Authorization: `JWT ${token}` }
    const json = { ...auth, 'Content-Type': 'application/json' }
    const cases: [operationId: string, url: string, init: RequestInit, status: number][] = [
      // A draft with required fields empty is what the CMS accepts (a typed client could not send it before).
      ['createPosts', '/api/posts?draft=true', { method: 'POST', headers: json, body: '{}' }, 201],
      // `select` leaves out required fields.
      ['findUsersByID', `/api/users/${user.id}?select[name]=true`, { headers: auth }, 200],
      ['findPosts', '/api/posts?select[slug]=true&where[title][like]=Welcome', { headers: auth }, 200],
      ['findPostsVersionByID', '/api/posts/versions/0', { headers: auth }, 400],
      ['getUsersDocumentAccess', '/api/users/access/999999', { method: 'POST', headers: auth }, 404],
      ['getUsersAccess', '/api/users/access', { method: 'POST', headers: json, body: '{"unterminated": ' }, 400],
      // The storage plugin redirects any file name to the CDN; a stream collection's unknown file is an empty 404.
      ['getImagesFile', '/api/images/file/no-such-file.png', {}, 302],
      ['getVideosFile', '/api/videos/file/0', {}, 404],
      ['updatePosts', '/api/posts', { method: 'PATCH', headers: json, body: '{}' }, 400],
    ]
    for (const [operationId, url, init, status] of cases) {
      const { answer, problems } = await answerOf(cmsDoc, app.cmsUrl, operationId, url, init)
      expect(answer.status, `${operationId} ${url}`).to.equal(status)
      expect(problems, `${operationId} ${url}`).to.deep.equal([])
    }
    const tail = (
      documentedOperations(daemonDoc)
        .find((o) => o.operationId === 'getSystemLogs')!
        .parameters.find((p) => p.name === 'tail') as Schema
    ).schema
    expect(tail).to.not.have.property('maximum')
    const cookieRes = await fetch(`${app.daemonUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: app.daemonUrl },
      body: JSON.stringify({ username: app.credentials.daemonUsername, password: app.credentials.daemonPassword }),
    })
    const cookie = cookieRes.headers.getSetCookie()[0]!.split(';')[0]!
    const capped = await answerOf(daemonDoc, `${app.daemonUrl}/api/v1`, 'getSystemLogs', '/logs/system?tail=50001', { headers: { Cookie: cookie } })
    expect([capped.answer.status, capped.problems]).to.deep.equal([200, []])
    const traversal = await answerOf(daemonDoc, `${app.daemonUrl}/api/v1`, 'downloadBackup', '/jobs/cms/backups/..%2F..%2Fetc/download', {
      headers: { Cookie: cookie },
    })
    expect([traversal.answer.status, traversal.problems]).to.deep.equal([400, []])
  })

  it("the dev-app's error answers name Payload's error classes, and its console shows a client's error as one line", async () => {
    const invalid = await answerOf(cmsDoc, app.cmsUrl, 'createPosts', '/api/posts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `JWT ${(await loginAsAdmin(app)).token}` },
      body: JSON.stringify({ title: '' }),
    })
    expect(invalid.answer.status).to.equal(400)
    expect(invalid.body().errors[0].name).to.equal('ValidationError')
    const before = app.output().length
    const wrong = await fetch(`${app.cmsUrl}/api/users/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: app.credentials.adminEmail, password: 'not-the-password' }),
    })
    expect(wrong.status).to.equal(401)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const logged = app.output().slice(before)
    expect(logged).to.match(/AuthenticationError \(401\): The email or password provided is incorrect/)
    expect(logged).to.not.match(/^\s*at /m)
  })
})

async function loginAsAdmin(app: RunningDevApp): Promise<{ token: string; user: { id: number } }> {
  const res = await fetch(`${app.cmsUrl}/api/users/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: app.credentials.adminEmail, password: app.credentials.adminPassword }),
  })
  return (await res.json()) as { token: string; user: { id: number } }
}
