/**
 * The dev-app's round-robin proxy in front of several CMS instances (src/start/roundRobinProxy.ts), against
 * real HTTP servers standing in for the instances: turns taken in order, a pinned request, a read sent on when
 * an instance is down and a write answered 502 naming it, the client's address passed on, and the
 * `CMS_INSTANCES` check.
 */
import { expect } from 'chai'
import { createServer, type Server } from 'node:http'
import { cmsInstanceCount } from '../../src/start/cmsInstances.js'
import { freePort, startRoundRobinProxy, type RoundRobinProxy } from '../../src/start/roundRobinProxy.js'

/** An instance that answers its own name, the body it received and the forwarded-for header. */
async function instance(name: string): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => res.end(JSON.stringify({ body, forwardedFor: req.headers['x-forwarded-for'], name })))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  return { port: typeof address === 'object' && address ? address.port : 0, server }
}

describe('round-robin proxy of several CMS instances (dev-app start)', function () {
  const servers: Server[] = []
  let proxy: RoundRobinProxy | undefined
  let url = ''
  const lines: string[] = []

  afterEach(async function () {
    await proxy?.close()
    for (const server of servers.splice(0)) {
      server.closeAllConnections()
      server.close()
    }
    lines.length = 0
  })

  const start = async (targets: Array<{ host: string; port: number }>) => {
    const port = await freePort('127.0.0.1')
    proxy = await startRoundRobinProxy({ host: '127.0.0.1', log: (line) => lines.push(line), port, targets })
    url = `http://127.0.0.1:${port}`
  }
  const ask = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${url}${path}`, init)
    return { instance: res.headers.get('x-dev-app-instance'), status: res.status, text: await res.text() }
  }

  it('takes turns, names the instance in each answer and prints API writes without their query', async function () {
    const [a, b] = [await instance('a'), await instance('b')]
    servers.push(a.server, b.server)
    await start([a, b].map(({ port }) => ({ host: '127.0.0.1', port })))
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await ask('/admin'))
    expect(answers.map((x) => [x.instance, JSON.parse(x.text).name])).to.deep.equal([
      ['1', 'a'],
      ['2', 'b'],
      ['1', 'a'],
      ['2', 'b'],
    ])
    const write = await ask('/api/images?token=secret-token', { body: 'the body', method: 'POST' })
    expect(JSON.parse(write.text)).to.include({ body: 'the body', forwardedFor: '127.0.0.1', name: 'a' })
    expect(lines).to.deep.equal(['POST /api/images → cms-1 (200)'])
    expect(proxy!.served()).to.deep.equal([3, 2])
  })

  it('sends a request that names an instance to that one', async function () {
    const [a, b] = [await instance('a'), await instance('b')]
    servers.push(a.server, b.server)
    await start([a, b].map(({ port }) => ({ host: '127.0.0.1', port })))
    for (let i = 0; i < 3; i++) expect(JSON.parse((await ask('/api/users/me', { headers: { 'X-Dev-App-Instance': '2' } })).text).name).to.equal('b')
    // A number that names no instance is a normal request.
    expect((await ask('/', { headers: { 'X-Dev-App-Instance': '7' } })).instance).to.equal('1')
  })

  it('sends a read on to the next instance when one is down, and answers a write 502 naming the instance', async function () {
    const live = await instance('live')
    servers.push(live.server)
    const down = await freePort('127.0.0.1')
    await start([
      { host: '127.0.0.1', port: down },
      { host: '127.0.0.1', port: live.port },
    ])
    const read = await ask('/admin')
    expect([read.status, read.instance, JSON.parse(read.text).name]).to.deep.equal([200, '2', 'live'])
    // The turn is the live instance's, then the dead one's: a write is never sent twice.
    expect((await ask('/api/posts', { body: '{}', method: 'POST' })).instance).to.equal('2')
    const write = await ask('/api/posts', { body: '{}', method: 'POST' })
    expect(write.status).to.equal(502)
    expect(write.text).to.match(/^CMS instance 1 did not answer \(connect ECONNREFUSED/)
  })

  it('CMS_INSTANCES: 1 by default, more only on a database server, and a clear message for a wrong value', function () {
    expect(cmsInstanceCount(undefined, 'sqlite')).to.equal(1)
    expect(cmsInstanceCount('2', 'postgres')).to.equal(2)
    expect(cmsInstanceCount('3', 'mongodb')).to.equal(3)
    expect(() => cmsInstanceCount('2', 'sqlite')).to.throw(/CMS_INSTANCES=2 needs a database server .*DATABASE_URI=postgres/)
    for (const wrong of ['0', '1.5', 'two', '9'])
      expect(() => cmsInstanceCount(wrong, 'postgres')).to.throw(`CMS_INSTANCES must be a whole number from 1 to 8, not "${wrong}"`)
  })
})
