/**
 * The docs page renders every documented operation in headless Chromium with every request outside the CMS
 * blocked (self-hosted assets: works with no internet access).
 */
import { createHash } from 'node:crypto'

import { expect } from 'chai'
import type { Browser } from 'playwright-core'

import { API_ROUTE } from './fixture/fixtureConfig.js'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startLiveCms, type LiveCms } from './support/liveCms.js'

describe('docs page (Swagger UI, self-hosted)', function () {
  this.timeout(120_000)
  let cms: LiveCms
  let browser: Browser | undefined

  // Chromium starts in the test that needs it: the asset test below runs without a browser.
  before(async () => {
    cms = await startLiveCms()
  })
  after(async () => {
    await browser?.close()
  })

  it('renders the operations with only same-origin requests', async () => {
    browser = await launchBrowser()
    const page = await browser.newPage()
    const foreign: string[] = []
    await page.route('**/*', (route) => {
      const url = route.request().url()
      if (url.startsWith(cms.url)) return route.continue()
      foreign.push(url)
      return route.abort()
    })
    const response = await page.goto(`${cms.url}${API_ROUTE}/docs`)
    expect(response?.status()).to.equal(200)
    await page.waitForSelector('.opblock', { timeout: 30_000 })
    const doc = await (await fetch(`${cms.url}${API_ROUTE}/openapi.json`)).json()
    const documented = Object.values<Record<string, unknown>>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0)
    const rendered = await page.locator('.opblock').count()
    expect(rendered).to.equal(documented)
    expect(await page.locator('.info .title').innerText()).to.contain('Fixture CMS')
    expect(await page.locator(`.opblock-summary-path[data-path="${API_ROUTE}/posts/{id}"]`).count()).to.be.greaterThan(0)
    await saveScreenshot(page, 'plugin-openapi-docs')
    expect(foreign).to.deep.equal([])
    await page.close()
  })

  it('pins every script and the stylesheet with Subresource Integrity of the bytes it serves', async () => {
    const html = await (await fetch(`${cms.url}${API_ROUTE}/docs`)).text()
    const pinned = [...html.matchAll(/(?:src|href)="([^"]+)" integrity="(sha384-[^"]+)"/g)]
    expect(pinned.map((m) => m[1]!.split('/').pop())).to.deep.equal([
      'swagger-ui.css',
      'swagger-ui-bundle.js',
      'swagger-ui-standalone-preset.js',
      'openapi-docs-init.js',
    ])
    for (const [, url, integrity] of pinned) {
      const bytes = Buffer.from(await (await fetch(`${cms.url}${url}`)).arrayBuffer())
      expect(`sha384-${createHash('sha384').update(bytes).digest('base64')}`, url).to.equal(integrity)
    }
  })

  it('serves only the known assets (no path escapes)', async () => {
    for (const name of ['..%2Fpackage.json', 'index.html', 'swagger-ui.js.map']) {
      expect((await fetch(`${cms.url}${API_ROUTE}/docs/${name}`)).status, name).to.equal(404)
    }
    const css = await fetch(`${cms.url}${API_ROUTE}/docs/swagger-ui.css`)
    expect(css.headers.get('content-type')).to.match(/^text\/css/)
  })
})
