import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { CONTENT_SECURITY_POLICY, serveUi } from '../../src/ui/serveUi.js'
import { listFiles } from '../../src/ui/build/listFiles.js'
import { committedAssetsDir } from '../../src/ui/build/buildUi.js'

describe('ui/serveUi', () => {
  const app = serveUi()
  const files = listFiles(committedAssetsDir)
  const script = files.find((f) => f.startsWith('static/') && f.endsWith('.js'))!
  const style = files.find((f) => f.startsWith('static/') && f.endsWith('.css'))!

  it('serves index.html at / with no-cache, the CSP and the hashed asset names', async () => {
    const res = await app.request('/')
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).to.equal('no-cache')
    expect(res.headers.get('content-security-policy')).to.equal(CONTENT_SECURITY_POLICY)
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff')
    const html = await res.text()
    expect(html).to.contain(`src="/${script}"`)
    expect(html).to.contain(`href="/${style}"`)
  })

  it('has a CSP with no external origin and no inline script or style', () => {
    expect(CONTENT_SECURITY_POLICY).to.match(/default-src 'none'/)
    expect(CONTENT_SECURITY_POLICY).not.to.match(/unsafe-inline|unsafe-eval|https?:|\*/)
  })

  it('serves hashed assets with their content type and a one-year immutable cache', async () => {
    const js = await app.request(`/${script}`)
    expect(js.status).to.equal(200)
    expect(js.headers.get('content-type')).to.equal('text/javascript; charset=utf-8')
    expect(js.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable')
    const css = await app.request(`/${style}`)
    expect(css.headers.get('content-type')).to.equal('text/css; charset=utf-8')
    const svg = await app.request('/favicon.svg')
    expect(svg.headers.get('content-type')).to.equal('image/svg+xml')
  })

  it('answers gzip when accepted, and 304 for a matching ETag', async () => {
    const plain = await app.request(`/${script}`)
    const body = Buffer.from(await plain.arrayBuffer())
    const zipped = await app.request(`/${script}`, { headers: { 'Accept-Encoding': 'gzip, br' } })
    expect(zipped.headers.get('content-encoding')).to.equal('gzip')
    expect(gunzipSync(Buffer.from(await zipped.arrayBuffer())).equals(body)).to.equal(true)
    const again = await app.request(`/${script}`, { headers: { 'If-None-Match': plain.headers.get('etag')! } })
    expect(again.status).to.equal(304)
  })

  it('falls back to index.html for client routes, HEAD included', async () => {
    for (const path of ['/jobs/nightly', '/logs/system', '/login', '/jobs/a%20b']) {
      const res = await app.request(path)
      expect(res.status, path).to.equal(200)
      expect(await res.text(), path).to.contain('<div id="app">')
    }
    const head = await app.request('/jobs/nightly', { method: 'HEAD' })
    expect(head.status).to.equal(200)
    expect(await head.text()).to.equal('')
  })

  it('404s missing files, API paths and other methods, and never escapes the folder', async () => {
    expect((await app.request('/static/nope-123.js')).status).to.equal(404)
    expect((await app.request('/api/v1/unknown')).status).to.equal(404)
    expect((await app.request('/', { method: 'POST' })).status).to.equal(404)
    for (const path of [
      '/../package.json',
      '/static/../../package.json',
      '/%2e%2e/%2e%2e/package.json',
      '/..%2f..%2fpackage.json',
      '/static/%2e%2e%2f%2e%2e%2fserveUi.ts',
    ]) {
      const res = await app.request(path)
      const text = await res.text()
      expect(text, path).not.to.contain('"name"')
      expect(text, path).not.to.contain('import')
    }
  })

  it('serves only what is in its folder, and says so when the UI is not built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ui-assets-'))
    try {
      const empty = serveUi({ assetsDir: dir })
      const res = await empty.request('/')
      expect(res.status).to.equal(503)
      expect(await res.text()).to.contain('build:ui')
      mkdirSync(join(dir, 'static'))
      writeFileSync(join(dir, 'index.html'), '<p>custom</p>')
      writeFileSync(join(dir, 'static', 'a-1.js'), 'x')
      const custom = serveUi({ assetsDir: dir })
      expect(await (await custom.request('/deep/route')).text()).to.equal('<p>custom</p>')
      expect(await (await custom.request('/static/a-1.js')).text()).to.equal('x')
      // A file added after start is not served: the table is fixed at start.
      writeFileSync(join(dir, 'static', 'late.js'), 'late')
      expect((await custom.request('/static/late.js')).status).to.equal(404)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
