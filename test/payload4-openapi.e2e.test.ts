/**
 * plugin-openapi on a real Payload 4 build: its own conformance suites, unchanged, run with Node 24 in the throwaway
 * Payload 4 project (plugin-storage/test/support/payload4Project.ts), in one mocha process:
 * - `conformance.test.ts`: every endpoint the CMS mounts is documented or excluded with a reason, every documented
 *   operation is called and every answer validated; on 4.x that includes `upload-instructions` and the staged-upload
 *   routes, and the versions routes 4.x mounts by default;
 * - `fixtureResponseConformance.test.ts`: generated valid and invalid requests for every operation, every answer
 *   checked against the document (status, content type, body), the core's known failures counted by name.
 *
 * Runs once (scripts/run-tests.mjs): the Payload 4 CMS it tests runs on the project's own Node 24 in either
 * pass of .ci/run, so the second pass would repeat it.
 */
import { expect } from 'chai'

import { PAYLOAD4_VERSION, preparePayload4Project, runMochaInPayload4 } from '../plugin-storage/test/support/payload4Project.js'

describe(`plugin-openapi conformance on Payload ${PAYLOAD4_VERSION} (Node 24)`, function () {
  this.timeout(15 * 60_000)

  it('passes the conformance suite and the response-conformance suite against a 4.x CMS', async () => {
    const project = await preparePayload4Project((line) => console.log(`      ${line}`))
    let run: Awaited<ReturnType<typeof runMochaInPayload4>>
    try {
      run = await runMochaInPayload4(project, ['plugin-openapi/test/conformance.test.ts', 'plugin-openapi/test/fixtureResponseConformance.test.ts'])
    } finally {
      project.release()
    }
    const { code, output } = run
    const figures = /^\s*conformance: (\{.*\})/m.exec(output)?.[1]
    const responses = /response conformance: (\{.*\})/.exec(output)?.[1]
    if (figures) console.log(`      on ${PAYLOAD4_VERSION}: ${figures}`)
    if (responses) console.log(`      on ${PAYLOAD4_VERSION}, responses: ${responses}`)
    expect(code, output.slice(-6000)).to.equal(0)
    expect(output).to.match(/\d+ passing/)
    expect(output).not.to.match(/\d+ failing/)
    const parsed = JSON.parse(figures ?? '{}') as { documentedOperations?: number; called?: number; failures?: number }
    expect(parsed.failures).to.equal(0)
    expect(parsed.called).to.equal(parsed.documentedOperations)
    const generated = JSON.parse(responses ?? '{}') as { operations?: number; requests?: number; findings?: number }
    expect(generated.findings).to.equal(0)
    expect(generated.requests).to.be.greaterThan(generated.operations ?? Infinity)
  })
})
