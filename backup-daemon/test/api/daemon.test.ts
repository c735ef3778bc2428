import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashPassword } from '../../src/auth/password.js'
import { spawnDaemon, type DaemonProcess } from './support/daemonProcess.js'
import { cookieAttributes } from './support/requests.js'
import { openSse } from './support/sseClient.js'
import { validateSchema } from './support/validateSchema.js'

const password = 'real-process-password'

describe('api: the real daemon process', function () {
  this.timeout(60_000)
  let dir: string
  let daemon: DaemonProcess | undefined

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'daemon-api-e2e-'))
    mkdirSync(join(dir, 'source', 'nested'), { recursive: true })
    mkdirSync(join(dir, 'storage'))
    writeFileSync(join(dir, 'source', 'hello.txt'), 'hello from the source\n')
    writeFileSync(join(dir, 'source', 'nested', 'random.bin'), randomBytes(256 * 1024))
    const config = {
      dataDir: join(dir, 'data'),
      server: {
        address: '127.0.0.1:0',
        secret: '',
        auth: {
          enabled: true,
          username: 'operator',
          password: await hashPassword(password),
          tokenExpiration: 10,
          cookies: { secure: false, sameSite: 'Strict' },
          allowedOrigins: [],
        },
        ui: { enabled: false },
      },
      jobs: [
        {
          name: 'files',
          schedule: '0 0 1 1 *',
          compression: 'tar.gz',
          sources: [{ type: 'local', name: 'site', path: join(dir, 'source') }],
          storages: [{ type: 'local', name: 'disk', path: join(dir, 'storage') }],
        },
      ],
    }
    // JSON is valid YAML.
    writeFileSync(join(dir, 'config.yaml'), JSON.stringify(config, null, 2))
    daemon = await spawnDaemon(join(dir, 'config.yaml'))
  })

  after(async () => {
    if (daemon) expect(await daemon.stop(), daemon.output()).to.equal(0)
    rmSync(dir, { recursive: true, force: true })
  })

  it('logs in, runs a job while watching its log stream, lists and downloads the snapshot byte for byte', async () => {
    const base = `${daemon!.url}/api/v1`
    expect((await fetch(`${base}/jobs`)).status).to.equal(401)
    const wrong = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'operator', password: 'nope' }),
    })
    expect(wrong.status).to.equal(401)
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'operator', password }),
    })
    expect(login.status).to.equal(200)
    const setCookie = login.headers.getSetCookie()[0]!
    expect(cookieAttributes(setCookie).get('max-age')).to.equal('600')
    expect(cookieAttributes(setCookie).get('samesite')).to.equal('Strict')
    const cookie = setCookie.split(';')[0]!
    const headers = { cookie }

    // What the original web client reads, from the real process: a public status, a never-run job with no
    // lastResult (not a failure), error = detail in Problems, and bodies that match the served document.
    const doc = await (await fetch(`${base}/openapi`)).json()
    const components = doc.components.schemas
    const matches = (body: unknown, name: string) => expect(validateSchema(body, { $ref: `#/components/schemas/${name}` }, components), name).to.deep.equal([])
    const publicStatus = await (await fetch(`${base}/status`)).json()
    expect(publicStatus).to.include({ status: 'ok', jobsCount: 1 })
    expect(publicStatus).not.to.have.property('jobs')
    matches(publicStatus, 'DaemonStatus')
    const fullStatus = await (await fetch(`${base}/status`, { headers })).json()
    expect(fullStatus.jobs).to.include({ total: 1, idle: 1 })
    matches(fullStatus, 'DaemonStatus')
    const fresh = await (await fetch(`${base}/jobs/files/status`, { headers })).json()
    expect(fresh).to.include({ name: 'files', status: 'idle' })
    expect(fresh).not.to.have.any.keys('lastResult', 'lastRun', 'cancelling')
    expect(Date.parse(fresh.nextRun)).to.be.greaterThan(Date.now())
    matches(fresh, 'JobStatus')
    const listed = await (await fetch(`${base}/jobs`, { headers })).json()
    expect(listed.jobs[0]).not.to.have.property('lastResult')
    matches(listed, 'JobList')
    matches(await (await fetch(`${base}/settings`)).json(), 'Settings')
    for (const filename of ['..%2F..%2Fstate.json', 'x%5C..%5Cy', '%252e%252e%252fstate.json']) {
      const refused = await fetch(`${base}/jobs/files/backups/${filename}/download`, { headers })
      expect(refused.status, filename).to.equal(400)
      const problem = await refused.json()
      expect(problem.error).to.equal(problem.detail)
      matches(problem, 'Problem')
    }
    // Literal `..` segments and backslashes, sent raw (no client normalising them): the URL parser resolves
    // `..` before routing (a 404 Problem for the path it leads to) and Node's HTTP parser refuses a raw
    // backslash with a bare 400; neither reaches a download.
    for (const path of ['/api/v1/jobs/files/backups/../../../data/state.json/download', '/api/v1/jobs/files/backups/..\\..\\state.json/download']) {
      const { status, type, body } = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(daemon!.url)
        // Options rather than a URL string: a URL would be normalised by the client before sending.
        const req = httpRequest({ hostname, port, path, headers }, (res) => {
          let body = ''
          res.on('data', (chunk: Buffer) => (body += chunk.toString()))
          res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }))
        })
        req.on('error', reject)
        req.end()
      })
      expect([400, 404], `${path}: ${body}`).to.include(status)
      if (body) expect(type, `${path}: ${status} ${body}`).to.equal('application/problem+json')
      expect(body).not.to.include('"jobs"')
    }

    const system = await (await fetch(`${base}/logs/system?tail=1000`, { headers })).json()
    expect(system.logs.join('\n')).to.include('failed login').and.not.to.include('nope')

    const stream = await openSse(`${base}/jobs/files/logs/stream?tail=0`, headers)
    try {
      const run = await fetch(`${base}/jobs/files/run`, { method: 'POST', headers })
      expect(run.status, await run.clone().text()).to.equal(202)
      expect((await run.json()).job).to.equal('files')
      const first = await stream.next()
      expect(JSON.parse(first!.data).line).to.be.a('string').and.not.equal('')
    } finally {
      stream.close()
    }

    let status: { status: string; lastResult?: { success: boolean; duration?: string; error?: string } } | undefined
    for (let i = 0; i < 300; i++) {
      status = await (await fetch(`${base}/jobs/files/status`, { headers })).json()
      if (status!.status === 'idle' && status!.lastResult) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(status!.status).to.equal('idle')
    expect(status!.lastResult, JSON.stringify(status)).to.include({ success: true })
    expect(status!.lastResult!.duration).to.match(/s$/)
    expect(status!.lastResult).not.to.have.property('error')
    matches(status, 'JobStatus')

    const log = await (await fetch(`${base}/jobs/files/logs?tail=500`, { headers })).json()
    expect(log.job).to.equal('files')
    expect(log.logs.length).to.be.greaterThan(0)

    const list = await (await fetch(`${base}/jobs/files/backups`, { headers })).json()
    expect(list.job).to.equal('files')
    expect(list.backups).to.have.length(1)
    const [snapshot] = list.backups
    expect(snapshot).to.include({ jobName: 'files', storageType: 'local', isSplit: false, partsCount: 1 })

    const download = await fetch(`${base}/jobs/files/backups/${encodeURIComponent(snapshot.name)}/download`, { headers })
    expect(download.status).to.equal(200)
    const bytes = Buffer.from(await download.arrayBuffer())
    expect(download.headers.get('content-length')).to.equal(String(bytes.length))
    expect(download.headers.get('content-disposition')).to.include(`filename*=UTF-8''${encodeURIComponent(snapshot.name)}`)
    expect(bytes.length).to.equal(snapshot.size)
    const onDisk = readFileSync(join(dir, 'storage', snapshot.path))
    expect(bytes.equals(onDisk)).to.equal(true)
    expect(bytes.subarray(0, 2)).to.deep.equal(Buffer.from([0x1f, 0x8b]))

    expect((await fetch(`${base}/jobs/files/backups/not-a-snapshot.tar.gz/download`, { headers })).status).to.equal(404)
    expect((await fetch(`${base}/jobs/nope/status`, { headers })).status).to.equal(404)
    expect((await fetch(`${base}/jobs/files/cancel`, { method: 'POST', headers })).status).to.equal(409)
    expect(doc.openapi).to.equal('3.1.0')
  })

  it('exits 0 on SIGTERM while a log stream is open, ending the stream', async () => {
    const base = `${daemon!.url}/api/v1`
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'operator', password }),
    })
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!
    const stream = await openSse(`${base}/logs/system/stream?tail=1`, { cookie })
    expect(stream.response.status).to.equal(200)
    expect(await stream.next()).not.to.equal(undefined)
    const exited = daemon!.stop()
    let frame: unknown = null
    while (frame !== undefined) frame = await stream.next().catch(() => undefined)
    expect(await exited, daemon!.output()).to.equal(0)
  })
})
