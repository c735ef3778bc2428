/**
 * The telegram notifier against a local HTTP server standing in for the Bot API (`apiBase`): the
 * request the Bot API expects, a refusal logged with its description, and the bot token kept out of
 * logs, errors and the config view.
 */
import { expect } from 'chai'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createEngine } from '../../src/engine/createEngine.js'
import { telegramNotifier, telegramText } from '../../src/notify/telegramNotifier.js'
import type { RunReport } from '../../src/notify/types.js'
import { configIn, makeTree, tempDir } from '../engine/helpers.js'

interface BotCall {
  method: string
  path: string
  contentType: string
  body: { chat_id: string; text: string; parse_mode: string }
}

describe('notifications: telegram', function () {
  this.timeout(60_000)
  const botToken = '7891234567:AAE-test-token-' + Math.random().toString(36).slice(2)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let api: Server
  let apiBase: string
  const calls: BotCall[] = []
  let answer: { status: number; body: unknown } = { status: 200, body: { ok: true, result: {} } }

  before(async () => {
    api = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        calls.push({ method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: JSON.parse(body) as BotCall['body'] })
        res.writeHead(answer.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(answer.body))
      })
    })
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve))
    apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`
  })
  after(() => new Promise((resolve) => api.close(resolve)))
  beforeEach(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
    calls.length = 0
    answer = { status: 200, body: { ok: true, result: {} } }
  })
  afterEach(() => tmp.remove())

  const engineFor = async (onSuccess: boolean) => {
    process.env.TEST_TG_TOKEN = botToken
    const config = await configIn(tmp.dir, [
      {
        name: 'job',
        extra: `    notifiers:\n      - { name: oncall, type: telegram, botToken: env:TEST_TG_TOKEN, chatId: '-1001234567890', apiBase: '${apiBase}', onSuccess: ${onSuccess}, onFailure: true }\n`,
      },
    ])
    delete process.env.TEST_TG_TOKEN
    return createEngine(config, { schedule: false })
  }

  it('sends sendMessage to the Bot API with a short summary of a real run', async () => {
    const engine = await engineFor(true)
    engine.run('job', 'manual')
    expect((await engine.whenIdle('job')).status).to.equal('success')
    const [snapshot] = await engine.listSnapshots('job')
    expect(calls).to.have.length(1)
    const call = calls[0]!
    expect(call).to.include({ method: 'POST', path: `/bot${botToken}/sendMessage`, contentType: 'application/json' })
    expect(call.body).to.include({ chat_id: '-1001234567890', parse_mode: 'HTML' })
    expect(call.body.text).to.include('Backup OK').and.include('<code>job</code>').and.include(snapshot!.name)
    const log = engine.logs.tail({ kind: 'job', job: 'job' }, 50).join('\n')
    expect(log).to.include('notify[0] "oncall" telegram chat -1001234567890: sent (success)')
    expect(log).to.not.include(botToken)
    expect(JSON.stringify(engine.jobConfig('job'))).to.not.include(botToken)
    expect((engine.jobConfig('job').notifiers as unknown[])[0]).to.deep.include({
      type: 'telegram',
      chatId: '-1001234567890',
      onSuccess: true,
      onFailure: true,
    })
    await engine.stop()
  })

  it('onSuccess false: a success is not sent; a refusal is logged with its description, never the token', async () => {
    const engine = await engineFor(false)
    engine.run('job', 'manual')
    expect((await engine.whenIdle('job')).status).to.equal('success')
    expect(calls).to.have.length(0)
    await engine.stop()

    answer = { status: 400, body: { ok: false, error_code: 400, description: `Bad Request: chat not found for bot${botToken}` } }
    const failing = telegramNotifier({ type: 'telegram', botToken, chatId: '1', apiBase, on: ['failure'], timeout: 5000 }, 0)
    const report: RunReport = {
      job: 'j',
      status: 'failure',
      startedAt: '',
      finishedAt: '',
      duration: '1s',
      durationSeconds: 1,
      error: 'disk <full>',
      snapshot: null,
      host: 'h',
    }
    const err = await failing.send(report).then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(err?.message).to.include('HTTP 400: Bad Request: chat not found')
    expect(err?.message).to.not.include(botToken)
    expect(calls[0]!.body.text).to.include('Backup FAILED').and.include('disk &lt;full&gt;')
  })

  it('a Bot API that cannot be reached: the error names no token', async () => {
    const down = telegramNotifier({ type: 'telegram', botToken, chatId: '1', apiBase: 'http://127.0.0.1:9', on: ['failure'], timeout: 5000 }, 3)
    const err = await down
      .send({ job: 'j', status: 'failure', startedAt: '', finishedAt: '', duration: '1s', durationSeconds: 1, error: 'x', snapshot: null, host: 'h' })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      )
    expect(err).to.be.instanceOf(Error)
    expect(`${err!.message} ${err!.stack ?? ''}`).to.not.include(botToken)
    expect(down.label).to.equal('notify[3] telegram chat 1')
    expect(
      telegramText({
        job: 'a&b',
        status: 'cancelled',
        startedAt: '',
        finishedAt: '',
        duration: '2s',
        durationSeconds: 2,
        error: 'cancelled',
        snapshot: null,
        host: 'h',
      }),
    )
      .to.include('CANCELLED')
      .and.include('a&amp;b')
  })
})
