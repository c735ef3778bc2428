import { expect } from 'chai'
import { startServer, type RunningServer } from '../../src/server/startServer.js'
import { realEngine, stampedLine, type RealEngine } from './support/realEngine.js'
import { openSse, type SseClient } from './support/sseClient.js'
import { testConfig, testPassword, testUser, type TestConfigOverrides } from './support/testConfig.js'

const line = (frame: { data: string } | undefined) => (JSON.parse(frame!.data) as { line: string }).line

/** Waits for a state of the server, within a generous deadline (10 s). */
async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('api: log streams over real HTTP', () => {
  let server: RunningServer
  let real: RealEngine | undefined
  let cookie: string
  const clients: SseClient[] = []

  async function start(overrides: TestConfigOverrides = {}, keepAliveMs = 150) {
    real = await realEngine({ overrides })
    for (let i = 1; i <= 5; i++) real.engine.logs.append({ kind: 'job', job: 'nightly' }, stampedLine(`old ${i}`))
    server = await startServer({ config: testConfig(overrides), engine: real.engine, app: { keepAliveMs } })
    const login = await fetch(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: testUser, password: testPassword }),
    })
    cookie = login.headers.get('set-cookie')!.split(';')[0]!
  }
  async function open(path: string) {
    const client = await openSse(`${server.url}${path}`, { cookie })
    clients.push(client)
    return client
  }

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close()
    await server?.close()
    await real?.close()
    real = undefined
  })

  it('replays the tail, then sends live lines in order as message events', async () => {
    await start({}, 60_000)
    const stream = await open('/api/v1/jobs/nightly/logs/stream?tail=2')
    expect(stream.response.status).to.equal(200)
    expect(stream.response.headers.get('content-type')).to.match(/^text\/event-stream/)
    expect(stream.response.headers.get('x-accel-buffering')).to.equal('no')
    const first = await stream.next()
    expect(first!.event ?? 'message').to.equal('message')
    expect(line(first)).to.equal(stampedLine('old 4'))
    expect(line(await stream.next())).to.equal(stampedLine('old 5'))
    await until(() => real!.subscribers({ kind: 'job', job: 'nightly' }) === 1, 'the subscription')
    real!.engine.logs.append({ kind: 'job', job: 'nightly' }, stampedLine('live \u001b[31mred\u001b[0m'))
    real!.engine.logs.append({ kind: 'job', job: 'nightly' }, stampedLine('live 2'))
    real!.engine.logs.append({ kind: 'job', job: 'weekly' }, stampedLine('not for this stream'))
    expect(line(await stream.next())).to.equal(stampedLine('live \u001b[31mred\u001b[0m'))
    expect(line(await stream.next())).to.equal(stampedLine('live 2'))
  })

  it('sends a {"line":""} message as keep-alive at the configured interval', async () => {
    await start({}, 100)
    const stream = await open('/api/v1/logs/system/stream?tail=0')
    const frame = await stream.next()
    expect(frame!.event ?? 'message').to.equal('message')
    expect(JSON.parse(frame!.data)).to.deep.equal({ line: '' })
    expect(JSON.parse((await stream.next())!.data)).to.deep.equal({ line: '' })
  })

  it('unsubscribes when the client goes away', async () => {
    await start()
    const stream = await open('/api/v1/jobs/nightly/logs/stream?tail=0')
    await until(() => real!.subscribers({ kind: 'job', job: 'nightly' }) === 1, 'the subscription')
    stream.close()
    await until(() => real!.subscribers({ kind: 'job', job: 'nightly' }) === 0, 'the unsubscription')
  })

  it('an unknown job, or a switched-off log, gives one message saying so and closes', async () => {
    await start({ logs: { perJob: false, system: false } })
    const unknown = await open('/api/v1/jobs/nope/logs/stream')
    expect(unknown.response.status).to.equal(200)
    expect(line(await unknown.next())).to.equal('job "nope" not found')
    expect(await unknown.next()).to.equal(undefined)
    const job = await open('/api/v1/jobs/nightly/logs/stream')
    expect(line(await job.next())).to.include('logs.perJob: false')
    expect(await job.next()).to.equal(undefined)
    const system = await open('/api/v1/logs/system/stream')
    expect(line(await system.next())).to.include('logs.system: false')
    expect(await system.next()).to.equal(undefined)
  })

  it('needs the session (401 Problem) and validates tail (400) before streaming', async () => {
    await start()
    const anonymous = await fetch(`${server.url}/api/v1/logs/system/stream`)
    expect(anonymous.status).to.equal(401)
    expect(anonymous.headers.get('content-type')).to.equal('application/problem+json')
    const forged = await fetch(`${server.url}/api/v1/jobs`, { headers: { cookie: 'theme=dark; backup_session=garbage' } })
    expect(forged.status).to.equal(401)
    const among = await fetch(`${server.url}/api/v1/jobs`, { headers: { cookie: `theme=dark; ${cookie}; lang=en` } })
    expect(among.status).to.equal(200)
    const bad = await fetch(`${server.url}/api/v1/jobs/nightly/logs/stream?tail=-3`, { headers: { cookie } })
    expect(bad.status).to.equal(400)
    expect((await bad.json()).errors[0]).to.include({ location: 'query.tail', value: '-3' })
  })

  it('answers HEAD on a stream without subscribing', async () => {
    await start()
    const res = await fetch(`${server.url}/api/v1/logs/system/stream`, { method: 'HEAD', headers: { cookie } })
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.match(/^text\/event-stream/)
    expect(real!.subscribers({ kind: 'system' })).to.equal(0)
  })

  it('close() ends open streams and resolves', async () => {
    await start({}, 60_000)
    const stream = await open('/api/v1/logs/system/stream?tail=0')
    await until(() => real!.subscribers({ kind: 'system' }) === 1, 'the subscription')
    await server.close()
    await until(() => real!.subscribers({ kind: 'system' }) === 0, 'the unsubscription')
    const ended = await stream.next().then(
      (f) => f,
      () => undefined,
    )
    expect(ended).to.equal(undefined)
  })
})
