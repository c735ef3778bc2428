/**
 * The hot path of `GET /api/v1/jobs` (server/hotJobList): it answers only a plain request with a verified
 * session, exactly as the app would (status, headers in order, body), hands everything else to the app,
 * and never serves a stale list from the real engine.
 */
import { expect } from 'chai'
import { mkdir, writeFile } from 'node:fs/promises'
import http from 'node:http'
import { join } from 'node:path'
import { Hono } from 'hono'
import { requireSession } from '../../src/auth/requireSession.js'
import { revokedSessions } from '../../src/auth/revokedSessions.js'
import { sessionCookieName } from '../../src/auth/sessionCookie.js'
import { signSession } from '../../src/auth/sessionToken.js'
import { createEngine, type DaemonEngine } from '../../src/engine/createEngine.js'
import { createApp } from '../../src/server/createApp.js'
import { hotJobList } from '../../src/server/hotJobList.js'
import { startServer, type RunningServer } from '../../src/server/startServer.js'
import { configIn, tempDir } from '../engine/helpers.js'
import { realEngine, type RealEngine } from './support/realEngine.js'
import { loginCookie, postJson } from './support/requests.js'
import { testConfig, testUser } from './support/testConfig.js'

const key = new TextEncoder().encode('hot-path-test-key-hot-path-test-key')
const jobsUrl = 'http://localhost/api/v1/jobs'

/** Status, every header in order and the body: what must be the same on both paths. */
async function answer(res: Response): Promise<{ status: number; headers: [string, string][]; body: string }> {
  return { status: res.status, headers: [...res.headers], body: await res.text() }
}

/** A session middleware that has already verified `cookie` (the way a first request through the app leaves it). */
async function warmSession(auth = testConfig().server.auth, now = () => Date.now()) {
  const revoked = revokedSessions()
  const session = requireSession({ auth, key, revoked, clock: now })
  const token = await signSession({ key, username: testUser, minutes: auth.tokenExpiration, now: now() })
  const cookie = `${sessionCookieName}=${token}`
  const gate = new Hono().get('/gate', session, (c) => c.text('in'))
  expect((await gate.request('/gate', { headers: { cookie } })).status).to.equal(200)
  return { session, revoked, cookie }
}

const engines: RealEngine[] = []

/** The real engine on a temporary folder: `nightly` and the inactive `weekly`, whose run failed when `failedWeekly`. */
async function real(failedWeekly = false): Promise<RealEngine['engine']> {
  const weekly = `    active: false\n${failedWeekly ? '    beforeScript: echo boom >&2; exit 1\n' : ''}`
  const created = await realEngine({ jobs: [{ name: 'nightly' }, { name: 'weekly', extra: weekly }] })
  engines.push(created)
  if (failedWeekly) {
    created.engine.run('weekly', 'manual')
    expect((await created.engine.whenIdle('weekly')).status).to.equal('failed')
  }
  return created.engine
}

describe('api: hot path of GET /jobs', () => {
  afterEach(async () => {
    for (const created of engines.splice(0)) await created.close()
  })

  it('answers a verified session with the same status, headers (in order) and body as the app', async () => {
    const engine = await real(true)
    const { session, cookie } = await warmSession()
    const hot = hotJobList({ engine, session, path: '/api/v1/jobs' })(new Request(jobsUrl, { headers: { cookie } }), undefined)
    expect(hot, 'the hot path answers').to.be.instanceOf(Response)
    const app = createApp({ config: testConfig(), engine, sessionKey: key, hotPaths: false })
    const viaApp = await app.request('/api/v1/jobs', { headers: { cookie } })
    const expected = await answer(viaApp)
    expect(expected.status).to.equal(200)
    expect(await answer(hot!)).to.deep.equal(expected)
    expect(JSON.parse(expected.body).jobs.map((j: { name: string }) => j.name)).to.deep.equal(['nightly', 'weekly'])
  })

  it('leaves to the app every request it must not answer itself', async () => {
    let clock = Date.now()
    const engine = await real()
    const { session, revoked, cookie } = await warmSession(testConfig().server.auth, () => clock)
    const hot = hotJobList({ engine, session, path: '/api/v1/jobs' })
    const unknownToken = `${sessionCookieName}=${await signSession({ key, username: testUser, minutes: 30 })}`
    const declined: [string, Request][] = [
      ['no cookie', new Request(jobsUrl)],
      ['a forged cookie', new Request(jobsUrl, { headers: { cookie: `${cookie}x` } })],
      ['a token not verified yet', new Request(jobsUrl, { headers: { cookie: unknownToken } })],
      ['HEAD', new Request(jobsUrl, { method: 'HEAD', headers: { cookie } })],
      ['POST', new Request(jobsUrl, { method: 'POST', headers: { cookie } })],
      ['a query string', new Request(`${jobsUrl}?x=1`, { headers: { cookie } })],
      ['a trailing slash', new Request(`${jobsUrl}/`, { headers: { cookie } })],
      ['another path', new Request('http://localhost/api/v1/jobsx', { headers: { cookie } })],
    ]
    for (const [what, request] of declined) expect(hot(request, undefined), what).to.equal(undefined)
    expect(hot(new Request(jobsUrl, { headers: { cookie } }), undefined), 'the plain request').to.be.instanceOf(Response)

    // A fault the real engine cannot hit on demand (its job list is in memory): one listing throws.
    const listJobs = engine.listJobs
    engine.listJobs = () => {
      throw new Error('engine down')
    }
    expect(hot(new Request(jobsUrl, { headers: { cookie } }), undefined), 'an engine error').to.equal(undefined)
    engine.listJobs = listJobs

    // Under five minutes left: the app must send a refreshed cookie, so the hot path steps aside.
    clock += 26 * 60_000
    expect(hot(new Request(jobsUrl, { headers: { cookie } }), undefined), 'a refresh due').to.equal(undefined)
    clock -= 26 * 60_000
    expect(hot(new Request(jobsUrl, { headers: { cookie } }), undefined), 'the plain request again').to.be.instanceOf(Response)
    revoked.revoke(JSON.parse(Buffer.from(cookie.split('.')[1]!, 'base64url').toString()).sid as string, clock / 1000 + 3600, clock / 1000)
    expect(hot(new Request(jobsUrl, { headers: { cookie } }), undefined), 'a logged-out session').to.equal(undefined)

    const other = await warmSession(testConfig().server.auth, () => clock)
    const otherHot = hotJobList({ engine, session: other.session, path: '/api/v1/jobs' })
    expect(otherHot(new Request(jobsUrl, { headers: { cookie: other.cookie } }), undefined), 'another session').to.be.instanceOf(Response)
    clock += 31 * 60_000
    expect(otherHot(new Request(jobsUrl, { headers: { cookie: other.cookie } }), undefined), 'an expired session').to.equal(undefined)
  })

  it('answers through the app exactly as without the hot path: 200 twice, 401 after a logout, a refreshed cookie', async () => {
    let clock = Date.now()
    const engine = await real()
    const make = (hotPaths: boolean) => createApp({ config: testConfig(), engine, sessionKey: key, hotPaths, clock: () => clock })
    const [withHot, without] = [make(true), make(false)]
    const cookie = await loginCookie(withHot)
    const both = async (path: string, headers: Record<string, string> = { cookie }) => {
      const [a, b] = [await answer(await withHot.request(path, { headers })), await answer(await without.request(path, { headers }))]
      expect(a, path).to.deep.equal(b)
      return a
    }
    expect((await both('/api/v1/jobs')).status).to.equal(200)
    expect((await both('/api/v1/jobs')).status).to.equal(200)
    expect((await both('/api/v1/jobs', {})).status).to.equal(401)
    clock += 26 * 60_000
    const refreshed = await both('/api/v1/jobs')
    expect(refreshed.headers.some(([name]) => name === 'set-cookie')).to.equal(true)
    clock -= 26 * 60_000
    for (const app of [withHot, without]) expect((await postJson(app, '/api/v1/auth/logout', {}, { cookie })).status).to.equal(200)
    expect((await both('/api/v1/jobs')).status).to.equal(401)
  })

  it('with auth off answers without a cookie, as the app does', async () => {
    const config = testConfig({ auth: { enabled: false } })
    const engine = await real()
    const session = requireSession({ auth: config.server.auth, key, revoked: revokedSessions() })
    const hot = hotJobList({ engine, session, path: '/api/v1/jobs' })(new Request(jobsUrl), undefined)
    expect(hot, 'the hot path answers').to.be.instanceOf(Response)
    const viaApp = await createApp({ config, engine, hotPaths: false }).request('/api/v1/jobs')
    expect(await answer(hot!)).to.deep.equal(await answer(viaApp))
  })

  describe('over HTTP with the real engine', () => {
    let dir: { dir: string; remove(): Promise<void> }
    let engine: DaemonEngine
    let servers: RunningServer[] = []

    beforeEach(async () => {
      dir = await tempDir('bd-hot-')
      await mkdir(join(dir.dir, 'src'))
      await writeFile(join(dir.dir, 'src', 'file.txt'), 'hot path\n'.repeat(1000))
      const server = `server:\n  address: 127.0.0.1:0\n  secret: ${'s'.repeat(40)}\n  auth: { enabled: true, username: admin, password: pw }\n`
      const config = await configIn(
        dir.dir,
        [
          { name: 'alpha', compression: 'tar' },
          { name: 'beta', compression: 'tar' },
        ],
        server,
      )
      engine = await createEngine(config, { schedule: false, persistLogs: false })
      servers = [await startServer({ config, engine }), await startServer({ config, engine, app: { hotPaths: false } })]
    })

    afterEach(async () => {
      await Promise.all(servers.map((s) => s.close()))
      await engine.stop()
      await dir.remove()
    })

    /** Status, raw headers without `Date` and the body, as read off the socket. */
    const rawGet = (url: string, cookie: string) =>
      new Promise<{ status: number; headers: string[]; body: string }>((resolve, reject) => {
        http
          .get(url, { headers: { cookie } }, (res) => {
            let body = ''
            res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
            res.on('end', () => {
              const headers = res.rawHeaders.filter((_, i, all) => all[i - (i % 2)]!.toLowerCase() !== 'date')
              resolve({ status: res.statusCode!, headers, body })
            })
          })
          .on('error', reject)
      })

    async function login(base: string): Promise<string> {
      const res = await fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"username":"admin","password":"pw"}',
      })
      expect(res.status).to.equal(200)
      return res.headers.get('set-cookie')!.split(';')[0]!
    }

    it('writes the same bytes as the app, and the list follows a run at once (running, then its result)', async () => {
      const [hot, plain] = await Promise.all(servers.map((s) => login(s.url)))
      // `same`: both servers must answer the same bytes (not while a run's progress moves between the two reads).
      const jobs = async (same = true) => {
        const [a, b] = [await rawGet(`${servers[0]!.url}/api/v1/jobs`, hot!), await rawGet(`${servers[1]!.url}/api/v1/jobs`, plain!)]
        if (same) expect(a).to.deep.equal(b)
        expect([a.status, b.status]).to.deep.equal([200, 200])
        type Listed = { name: string; status: string; lastResult?: { success: boolean }; lastRun?: string; progress?: unknown }
        return (JSON.parse(a.body) as { jobs: Listed[] }).jobs
      }
      // The first request verifies the token through the app; the next ones take the hot path, from the cached body.
      for (let i = 0; i < 3; i++)
        expect((await jobs()).map((j) => [j.name, j.status, j.lastResult])).to.deep.equal([
          ['alpha', 'idle', undefined],
          ['beta', 'idle', undefined],
        ])

      engine.run('alpha', 'manual')
      const running = await jobs(false)
      expect(running[0]!.status).to.equal('running')
      expect(running[0]!.lastRun).to.be.a('string')
      expect(running[1]!.status).to.equal('idle')

      await engine.whenIdle('alpha')
      const [alpha, beta] = await jobs()
      expect(alpha).to.include({ status: 'idle' })
      expect(alpha!.lastResult?.success).to.equal(true)
      expect(alpha!.progress).to.equal(undefined)
      expect(beta!.lastResult).to.equal(undefined)
    })

    it('hands out the same frozen list while nothing changed, and a new one when a job did', async () => {
      const first = engine.listJobs()
      expect(engine.listJobs()).to.equal(first)
      expect(Object.isFrozen(first) && first.every((j) => Object.isFrozen(j))).to.equal(true)
      engine.run('beta', 'manual')
      const during = engine.listJobs()
      expect(during).to.not.equal(first)
      expect(during[0]).to.equal(first[0], 'an unchanged job keeps its view')
      await engine.whenIdle('beta')
      const after = engine.listJobs()
      expect(after).to.not.equal(during)
      expect(after[1]!.lastResult?.success).to.equal(true)
    })
  })
})
