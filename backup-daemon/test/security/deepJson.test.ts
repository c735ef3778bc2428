/**
 * Deeply nested JSON is a 400 with a short `value`, not a 500: the validation error used to copy the
 * whole input into `errors[].value`, and serialising a few thousand levels overflowed the stack.
 */
import { expect } from 'chai'
import { boundedValue } from '../../src/server/validationHook.js'
import { createApp } from '../../src/server/createApp.js'
import { realEngine, type RealEngine } from '../api/support/realEngine.js'
import { testConfig } from '../api/support/testConfig.js'

const post = (app: ReturnType<typeof createApp>, body: string) =>
  app.request('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body })

describe('security: deeply nested JSON answers 400 with a bounded value', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real.close())

  it('7000-deep arrays as the user name (inside the 16 KiB login limit): 400, value cut, nothing logged as internal error', async () => {
    const engine = real.engine
    const app = createApp({ config: testConfig(), engine })
    const res = await post(app, `{"username":${'['.repeat(7000)}${']'.repeat(7000)},"password":"x"}`)
    expect(res.status).to.equal(400)
    const problem = await res.json()
    expect(problem.errors[0].location).to.equal('body.username')
    expect(JSON.stringify(problem.errors[0].value).length).to.be.below(100)
    expect(engine.logs.tail({ kind: 'system' }, 10).join('\n')).not.to.include('internal error')
  })

  it('8000-deep arrays as the whole body: 400', async () => {
    const res = await post(createApp({ config: testConfig(), engine: real.engine }), `${'['.repeat(8000)}${']'.repeat(8000)}`)
    expect(res.status).to.equal(400)
    expect((await res.json()).errors[0].location).to.equal('body')
  })

  it('a 10000-deep body is refused too (413: over the login body limit), never 500', async () => {
    const res = await post(createApp({ config: testConfig(), engine: real.engine }), `{"username":${'['.repeat(10_000)}${']'.repeat(10_000)},"password":"x"}`)
    expect(res.status).to.equal(413)
  })

  it('boundedValue keeps small values as they are and cuts depth, width and long strings', () => {
    expect(boundedValue({ a: 1, b: [true, null, 'x'] })).to.deep.equal({ a: 1, b: [true, null, 'x'] })
    expect(boundedValue([[[[[1]]]]])).to.deep.equal([[['[array]']]])
    expect(boundedValue(Array.from({ length: 25 }, (_, i) => i))).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, '... 15 more'])
    expect(boundedValue('y'.repeat(1000))).to.equal(`${'y'.repeat(200)}...`)
    expect(Object.keys(boundedValue(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]))) as object)).to.have.length(11)
  })
})
