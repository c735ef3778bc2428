/**
 * `GET /api/v1/jobs`, the request the web UI polls: answered by its route like every other request (issue
 * 26 removed the hot path that answered it in front of the app), with every middleware of the app applied,
 * the bytes `c.json` writes, and the list's JSON kept while the engine hands out the same frozen list
 * (`server/jobListBody`), never stale.
 */
import { expect } from 'chai'
import { mkdir, writeFile } from 'node:fs/promises'
import http from 'node:http'
import { join } from 'node:path'
import { Hono } from 'hono'
import { sessionCookieName } from '../../src/auth/sessionCookie.js'
import { createEngine, type DaemonEngine } from '../../src/engine/createEngine.js'
import type { JobView } from '../../src/engine/types.js'
import { createApp } from '../../src/server/createApp.js'
import { jobListBody } from '../../src/server/jobListBody.js'
import { securityHeaders } from '../../src/server/securityHeaders.js'
import { startServer, type RunningServer } from '../../src/server/startServer.js'
import { configIn, tempDir } from '../engine/helpers.js'
import { realEngine, type RealEngine } from './support/realEngine.js'
import { loginCookie, postJson } from './support/requests.js'
import { testConfig } from './support/testConfig.js'

const key = new TextEncoder().encode('job-list-test-key-job-list-test-key')

/** Status, every header in order and the body. */
async function answer(res: Response): Promise<{ status: number; headers: [string, string][]; body: string }> {
  return { status: res.status, headers: [...res.headers], body: await res.text() }
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

describe('api: GET /jobs through its route', () => {
  afterEach(async () => {
    for (const created of engines.splice(0)) await created.close()
  })

  it('writes what c.json writes behind the security headers, the same from the kept text as the first time', async () => {
    const engine = await real(true)
    const app = createApp({ config: testConfig(), engine, sessionKey: key })
    const cookie = await loginCookie(app)
    const first = await answer(await app.request('/api/v1/jobs', { headers: { cookie } }))
    const second = await answer(await app.request('/api/v1/jobs', { headers: { cookie } }))
    expect(first.status).to.equal(200)
    expect(second).to.deep.equal(first)
    // What the route wrote before it kept the text: `c.json({ jobs })` behind the same security headers.
    const plain = new Hono().use('*', securityHeaders()).get('/api/v1/jobs', (c) => c.json({ jobs: engine.listJobs() }))
    expect(first).to.deep.equal(await answer(await plain.request('/api/v1/jobs')))
    expect(JSON.parse(first.body).jobs.map((j: JobView) => [j.name, j.active, j.lastResult?.success])).to.deep.equal([
      ['nightly', true, undefined],
      ['weekly', false, false],
    ])
  })

  it("passes the app's middleware every time: 401 without or with a forged cookie, a refreshed cookie when due, 401 after a logout", async () => {
    let clock = Date.now()
    const engine = await real()
    const app = createApp({ config: testConfig(), engine, sessionKey: key, clock: () => clock })
    const cookie = await loginCookie(app)
    const get = (headers: Record<string, string> = { cookie }) => app.request('/api/v1/jobs', { headers })
    for (let i = 0; i < 2; i++) expect((await get()).status).to.equal(200)
    for (const headers of [{}, { cookie: `${cookie}x` }] as Record<string, string>[]) {
      const refused = await get(headers)
      expect(refused.status).to.equal(401)
      expect(refused.headers.get('content-type')).to.equal('application/problem+json')
      expect(refused.headers.get('cache-control')).to.equal('no-store')
    }
    clock += 26 * 60_000
    const refreshed = await get()
    expect(refreshed.status).to.equal(200)
    expect(refreshed.headers.get('set-cookie'), 'a refreshed cookie under five minutes left').to.match(new RegExp(`^${sessionCookieName}=`))
    clock -= 26 * 60_000
    expect((await postJson(app, '/api/v1/auth/logout', {}, { cookie })).status).to.equal(200)
    expect((await get()).status).to.equal(401)
  })

  it('with auth off answers without a cookie', async () => {
    const engine = await real()
    const res = await createApp({ config: testConfig({ auth: { enabled: false } }), engine }).request('/api/v1/jobs')
    expect(res.status).to.equal(200)
    expect((await res.json()).jobs.map((j: JobView) => j.name)).to.deep.equal(['nightly', 'weekly'])
  })

  it('keeps the text only for a frozen list: a list changed in place is serialised every time', () => {
    const view = (name: string) => ({ name, active: true, schedule: '0 0 * * *', sourcesCount: 1, storagesCount: 1, status: 'idle' }) as JobView
    const frozen = Object.freeze([Object.freeze(view('a'))])
    let calls = 0
    const kept = jobListBody(() => (calls++, frozen))
    expect(kept()).to.equal('{"jobs":[{"name":"a","active":true,"schedule":"0 0 * * *","sourcesCount":1,"storagesCount":1,"status":"idle"}]}')
    expect(kept()).to.equal(kept())
    expect(calls, 'the engine is asked every time').to.equal(3)

    const mutable: JobView[] = [view('a')]
    const fresh = jobListBody(() => mutable)
    expect(JSON.parse(fresh()).jobs).to.have.length(1)
    mutable.push(view('b'))
    expect(JSON.parse(fresh()).jobs.map((j: JobView) => j.name)).to.deep.equal(['a', 'b'])

    const failing = jobListBody(() => {
      throw new Error('engine down')
    })
    expect(failing).to.throw('engine down')
  })

  describe('over HTTP with the real engine', () => {
    let dir: { dir: string; remove(): Promise<void> }
    let engine: DaemonEngine
    let server: RunningServer

    beforeEach(async () => {
      dir = await tempDir('bd-jobs-')
      await mkdir(join(dir.dir, 'src'))
      await writeFile(join(dir.dir, 'src', 'file.txt'), 'job list\n'.repeat(1000))
      const serverYaml = `server:\n  address: 127.0.0.1:0\n  secret: ${'s'.repeat(40)}\n  auth: { enabled: true, username: admin, password: pw }\n`
      const config = await configIn(
        dir.dir,
        [
          { name: 'alpha', compression: 'tar' },
          { name: 'beta', compression: 'tar' },
        ],
        serverYaml,
      )
      engine = await createEngine(config, { schedule: false, persistLogs: false })
      server = await startServer({ config, engine })
    })

    afterEach(async () => {
      await server.close()
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

    it('writes the same bytes while nothing changed, and the list follows a run at once (running, then its result)', async () => {
      const cookie = await login(server.url)
      type Listed = { name: string; status: string; lastResult?: { success: boolean }; lastRun?: string; progress?: unknown }
      const jobs = async () => {
        const res = await rawGet(`${server.url}/api/v1/jobs`, cookie)
        expect(res.status).to.equal(200)
        return { res, jobs: (JSON.parse(res.body) as { jobs: Listed[] }).jobs }
      }
      const first = await jobs()
      expect(first.jobs.map((j) => [j.name, j.status, j.lastResult])).to.deep.equal([
        ['alpha', 'idle', undefined],
        ['beta', 'idle', undefined],
      ])
      const length = first.res.headers[first.res.headers.findIndex((h) => h.toLowerCase() === 'content-length') + 1]
      expect(Number(length)).to.equal(Buffer.byteLength(first.res.body))
      for (let i = 0; i < 2; i++) expect((await jobs()).res).to.deep.equal(first.res)

      engine.run('alpha', 'manual')
      const running = (await jobs()).jobs
      expect(running[0]!.status).to.equal('running')
      expect(running[0]!.lastRun).to.be.a('string')
      expect(running[1]!.status).to.equal('idle')

      await engine.whenIdle('alpha')
      const [alpha, beta] = (await jobs()).jobs
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
