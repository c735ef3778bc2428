import { expect } from 'chai'
import type { Browser } from 'playwright-core'
import { startServer, type RunningServer } from '../../src/server/startServer.js'
import { realEngine, type RealEngine } from './support/realEngine.js'
import { testConfig } from './support/testConfig.js'
import { launchBrowser } from '../ui/support/browser.js'

describe('api: docs page in a real browser', function () {
  this.timeout(60_000)
  let browser: Browser
  let server: RunningServer
  let real: RealEngine | undefined

  before(async () => {
    real = await realEngine()
    server = await startServer({ config: testConfig(), engine: real.engine })
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await server?.close()
    await real?.close()
  })

  it('renders every operation from /api/v1/openapi offline, with no CSP violation', async () => {
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text())
    })
    page.on('pageerror', (err) => problems.push(err.message))
    const external: string[] = []
    page.on('request', (req) => {
      if (!req.url().startsWith(server.url)) external.push(req.url())
    })
    await page.goto(`${server.url}/api/v1/docs`)
    await page.locator('section.op').nth(24).waitFor()
    expect(await page.locator('section.op').count()).to.equal(27)
    expect(await page.locator('#title').textContent()).to.match(/^Backup daemon API \d+\.\d+\.\d+/)
    expect(await page.locator('section.op', { hasText: '/jobs/{name}/logs/stream' }).textContent()).to.include('(session)')
    expect(problems).to.deep.equal([])
    expect(external).to.deep.equal([])
  })
})
