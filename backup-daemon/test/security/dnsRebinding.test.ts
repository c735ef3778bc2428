/**
 * Issue 28 item 13: the `Host` header alone no longer decides what "same origin" is. Against a real
 * daemon process on 127.0.0.1, a page served under a rebound name (`Host: rebind.test:<port>` with the
 * matching `Origin`, or a same-origin GET) is refused with a 403 Problem; the daemon's own names
 * (`localhost`, the IP literal) still pass, and so does a client that is no browser.
 */
import { expect } from 'chai'
import { request } from 'node:http'
import { loginCookie, startOneFileDaemon, type RunningDaemon } from '../ui/support/realDaemon.js'

interface Answer {
  status: number
  type: string
  body: string
}

describe('security: DNS rebinding, only the daemon’s own names and allowedOrigins are its origin (real daemon)', function () {
  this.timeout(60_000)
  let daemon: RunningDaemon
  let port: string
  let cookie = ''

  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<Answer>((resolve, reject) => {
      const req = request(`${daemon.url}${path}`, { method, headers: { cookie, ...headers } }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body: text }))
      })
      req.on('error', reject)
      req.end(body)
    })

  before(async () => {
    daemon = await startOneFileDaemon('sec-rebind-')
    port = new URL(daemon.url).port
    cookie = await loginCookie(daemon.url)
  })
  after(async () => {
    await daemon?.stop()
  })

  it('refuses a POST whose Host and Origin are a rebound name (the job does not start)', async () => {
    const res = await send('POST', '/api/v1/jobs/j/run', { host: `rebind.test:${port}`, origin: `http://rebind.test:${port}` })
    expect(res.status, res.body).to.equal(403)
    expect(res.type).to.equal('application/problem+json')
    expect(JSON.parse(res.body).detail).to.match(/^cross-site request refused/)
    const jobs = await send('GET', '/api/v1/jobs', {})
    expect(JSON.parse(jobs.body).jobs ?? JSON.parse(jobs.body)).to.satisfy((list: { name: string; status: string }[]) => list.every((j) => j.status === 'idle'))
  })

  it('refuses a browser GET (Sec-Fetch-Site: same-origin) under a rebound Host', async () => {
    const res = await send('GET', '/api/v1/jobs', { host: `rebind.test:${port}`, 'sec-fetch-site': 'same-origin' })
    expect(res.status, res.body).to.equal(403)
  })

  it('accepts the own names: localhost and the IP literal, and a client that is no browser under any name', async () => {
    expect((await send('GET', '/api/v1/jobs', { host: `localhost:${port}`, 'sec-fetch-site': 'same-origin' })).status).to.equal(200)
    expect((await send('GET', '/api/v1/jobs', { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' })).status).to.equal(200)
    expect((await send('GET', '/api/v1/jobs', { host: `rebind.test:${port}` })).status).to.equal(200)
    const run = await send('POST', '/api/v1/jobs/j/run', { host: `localhost:${port}`, origin: `http://localhost:${port}` })
    expect(run.status, run.body).to.equal(202)
  })
})
