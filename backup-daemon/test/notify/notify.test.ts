/**
 * Notifications from real runs of the engine to a real local HTTP server (webhook) and a real local
 * SMTP server (`smtp-server`, with authentication): bodies, headers, the `on` filter, a failing
 * notifier that never fails the backup, and secrets kept out of the config view and the logs.
 */
import { expect } from 'chai'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { SMTPServer } from 'smtp-server'
import { createEngine } from '../../src/engine/createEngine.js'
import { describeFetchFailure } from '../../src/notify/notifierRequest.js'
import type { RunReport } from '../../src/notify/types.js'
import { resticJson } from '../../src/repository/restic/resticProcess.js'
import { configIn, makeTree, tempDir } from '../engine/helpers.js'
import { freePort } from '../support/freePort.js'
import { requireRestic } from '../support/requireRestic.js'

interface Hit {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: RunReport
}

interface Mail {
  user: string | undefined
  from: string
  to: string[]
  text: string
}

describe('notifications: webhook and email', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let http: Server
  let httpUrl: string
  let status = 200
  const hits: Hit[] = []
  let smtp: SMTPServer
  let smtpPort: number
  const mails: Mail[] = []
  const smtpPassword = 'smtp-secret-' + Math.random().toString(36).slice(2)
  const token = 'webhook-token-' + Math.random().toString(36).slice(2)

  before(async () => {
    http = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        hits.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: JSON.parse(body) as RunReport })
        res.statusCode = status
        res.end('ok')
      })
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer' && auth.password === smtpPassword) callback(null, { user: auth.username })
        else callback(new Error('invalid credentials'))
      },
      onData(stream, session, callback) {
        let text = ''
        stream.on('data', (chunk: Buffer) => (text += chunk.toString()))
        stream.on('end', () => {
          mails.push({
            user: session.user as string | undefined,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            text,
          })
          callback()
        })
      },
    })
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
    smtpPort = (smtp.server.address() as AddressInfo).port
  })
  after(async () => {
    await new Promise((resolve) => http.close(resolve))
    await new Promise<void>((resolve) => smtp.close(() => resolve()))
  })
  beforeEach(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
    hits.length = 0
    mails.length = 0
    status = 200
  })
  afterEach(() => tmp.remove())

  const notifyYaml = (webhookOn: string, emailOn: string) => `    notify:
      - type: webhook
        url: ${httpUrl}/hooks/secret-path?key=${token}
        headers: { Authorization: "Bearer ${token}", X-Team: ops }
        on: [${webhookOn}]
      - type: email
        smtp: { host: 127.0.0.1, port: ${smtpPort}, secure: false, username: mailer, password: env:TEST_SMTP_PASSWORD }
        from: backups@example.test
        to: [ops@example.test, oncall@example.test]
        on: [${emailOn}]
`

  const engineFor = async (extra: string, sourcePath = './src') => {
    process.env.TEST_SMTP_PASSWORD = smtpPassword
    const config = await configIn(tmp.dir, [{ name: 'job', extra }])
    delete process.env.TEST_SMTP_PASSWORD
    if (sourcePath !== './src') (config.jobs[0]!.sources[0] as { path: string }).path = join(tmp.dir, sourcePath)
    return createEngine(config, { schedule: false })
  }

  it('a successful run: webhook JSON with the snapshot, headers sent; email through SMTP auth', async () => {
    const engine = await engineFor(notifyYaml('success, failure', 'success'))
    engine.run('job', 'manual')
    expect((await engine.whenIdle('job')).status).to.equal('success')
    const [snapshot] = await engine.listSnapshots('job')
    expect(hits).to.have.length(1)
    const hit = hits[0]!
    expect(hit.path).to.equal(`/hooks/secret-path?key=${token}`)
    expect(hit.headers.authorization).to.equal(`Bearer ${token}`)
    expect(hit.headers['x-team']).to.equal('ops')
    expect(hit.headers['content-type']).to.equal('application/json')
    expect(hit.body).to.include({ job: 'job', status: 'success', error: '' })
    expect(hit.body.durationSeconds).to.be.a('number').and.at.least(0)
    expect(hit.body.snapshot).to.include({ name: snapshot!.name, size: snapshot!.size, parts: 1 })
    expect(hit.body.snapshot!.sha256).to.match(/^[0-9a-f]{64}$/)
    expect(mails).to.have.length(1)
    expect(mails[0]).to.include({ user: 'mailer', from: 'backups@example.test' })
    expect(mails[0]!.to).to.deep.equal(['ops@example.test', 'oncall@example.test'])
    expect(mails[0]!.text).to.include('Subject: [backup-daemon] job: success')
    expect(mails[0]!.text).to.include(snapshot!.name)
    await engine.stop()
  })

  it('a restic run: no empty sha256, the commit snapshot id instead (webhook and email)', async () => {
    await requireRestic()
    process.env.TEST_SMTP_PASSWORD = smtpPassword
    const config = await configIn(tmp.dir, [{ name: 'job', extra: notifyYaml('success', 'success') }])
    delete process.env.TEST_SMTP_PASSWORD
    const target = { repository: join(tmp.dir, 'repo'), password: 'notify restic pass', cacheDir: join(tmp.dir, 'cache') }
    config.jobs[0]!.storages = [{ type: 'restic', name: 'dedup', repository: target.repository, password: target.password, extraParams: [], env: {} }]
    const engine = await createEngine(config, { schedule: false })
    engine.run('job', 'manual')
    expect((await engine.whenIdle('job')).status).to.equal('success')
    await engine.stop()
    const [commit] = await resticJson<{ id: string }[]>(target, ['snapshots', '--no-lock', '--tag', 'commit'])
    expect(commit?.id).to.match(/^[0-9a-f]{64}$/)
    expect(hits).to.have.length(1)
    expect(hits[0]!.body.snapshot).to.not.have.property('sha256')
    // restic 0.14's backup summary gives the short id (as `restic snapshots` prints it), newer ones the whole.
    const [reference] = hits[0]!.body.snapshot!.references!
    expect(reference!.label).to.equal('restic snapshot (commit) in "dedup"')
    expect(reference!.id).to.have.length.of.at.least(8)
    expect(commit!.id.startsWith(reference!.id)).to.equal(true)
    expect(mails).to.have.length(1)
    const text = mails[0]!.text.replace(/=\r?\n/g, '')
    expect(text).to.not.match(/^sha256:/m)
    expect(text).to.include(`restic snapshot (commit) in "dedup": ${reference!.id}`)
  })

  it('a failed run: only the notifiers listening for failure are told, with the error', async () => {
    const engine = await engineFor(notifyYaml('failure', 'success'), 'missing-folder')
    engine.run('job', 'manual')
    expect((await engine.whenIdle('job')).status).to.equal('failed')
    expect(hits).to.have.length(1)
    expect(hits[0]!.body).to.include({ status: 'failure', snapshot: null })
    expect(hits[0]!.body.error).to.include('missing-folder')
    expect(mails).to.have.length(0)
    await engine.stop()
  })

  it('a failing notifier never fails the run: logged with its label, no secret in the log or the config view', async () => {
    status = 500
    const unreachable = `      - type: webhook\n        url: http://127.0.0.1:9/down\n        on: [success]\n        timeout: 2000\n`
    const badMail = notifyYaml('success', 'success').replace('password: env:TEST_SMTP_PASSWORD', 'password: wrong-smtp-password')
    const engine = await engineFor(badMail + unreachable)
    engine.run('job', 'manual')
    const info = await engine.whenIdle('job')
    expect(info.status, info.error).to.equal('success')
    const log = engine.logs.tail({ kind: 'job', job: 'job' }, 100).join('\n')
    expect(log).to.match(/notify\[0\] webhook 127\.0\.0\.1:\d+: failed: HTTP 500/)
    expect(log).to.match(/notify\[2\] webhook 127\.0\.0\.1:9: failed: /)
    expect(log).to.match(/notify\[1\] email via 127\.0\.0\.1:\d+: failed: /)
    expect(mails).to.have.length(0)
    for (const secret of [token, smtpPassword, 'wrong-smtp-password', 'secret-path']) expect(log).to.not.include(secret)
    const view = JSON.stringify(engine.jobConfig('job'))
    for (const secret of [token, 'wrong-smtp-password', 'secret-path']) expect(view).to.not.include(secret)
    const notifiers = engine.jobConfig('job').notifiers as Record<string, unknown>[]
    expect(notifiers[0]).to.deep.include({ type: 'webhook', urlHost: new URL(httpUrl).host, onSuccess: true, onFailure: false })
    expect(notifiers[0]).to.not.have.any.keys('url', 'headers')
    expect(notifiers[1]).to.deep.include({ type: 'email', smtpHost: '127.0.0.1', from: 'backups@example.test' })
    expect(JSON.stringify(notifiers[1])).to.not.include('password')
    await engine.stop()
  })

  it('issue 39 #6: a URL with user:password delivers them as Authorization: Basic; a failure logs neither them nor the path or query', async () => {
    const port = new URL(httpUrl).port
    const closed = await freePort()
    // The password has an escaped "@" and ":"; the path and the query are the service's secret.
    const credentialed = (hostPort: string) => `http://hookuser:pw%40x%3Ay@${hostPort}/hooks/secret-path/T0K3N?token=${token}`
    const entries = `    notify:
      - type: webhook
        url: ${credentialed(`127.0.0.1:${port}`)}
        on: [success]
      - type: webhook
        url: ${credentialed(`127.0.0.1:${closed}`)}
        on: [success]
        timeout: 2000
`
    const engine = await engineFor(entries)
    engine.run('job', 'manual')
    expect((await engine.whenIdle('job')).status).to.equal('success')
    expect(hits).to.have.length(1)
    expect(hits[0]!.path).to.equal(`/hooks/secret-path/T0K3N?token=${token}`)
    expect(hits[0]!.headers.authorization).to.equal(`Basic ${Buffer.from('hookuser:pw@x:y').toString('base64')}`)
    const log = engine.logs.tail({ kind: 'job', job: 'job' }, 100).join('\n')
    expect(log).to.match(/notify\[0\] webhook 127\.0\.0\.1:\d+: sent \(success\)/)
    expect(log).to.include(`notify[1] webhook 127.0.0.1:${closed}: failed: fetch failed: connect ECONNREFUSED 127.0.0.1:${closed}`)
    for (const secret of ['hookuser', 'pw%40x', 'secret-path', 'T0K3N', token]) expect(log).to.not.include(secret)
    await engine.stop()
  })

  it("the original's spelling: notifiers with onSuccess/onFailure, webhook method, email's flat smtp keys", async () => {
    const original = `    notifiers:
      - name: ops-webhook
        type: webhook
        url: ${httpUrl}/put-here
        method: PUT
        headers: { Authorization: "Bearer ${token}" }
        onSuccess: true
        onFailure: true
      - name: mail-team
        type: email
        smtpHost: 127.0.0.1
        smtpPort: ${smtpPort}
        smtpUser: mailer
        smtpPass: env:TEST_SMTP_PASSWORD
        from: alerts@example.test
        to: [devops@example.test]
        useTLS: false
        onSuccess: true
        onFailure: false
      - name: muted
        type: webhook
        url: ${httpUrl}/never
        onSuccess: false
        onFailure: false
`
    const engine = await engineFor(original)
    engine.run('job', 'manual')
    expect((await engine.whenIdle('job')).status).to.equal('success')
    expect(hits.map((h) => `${h.method} ${h.path}`)).to.deep.equal(['PUT /put-here'])
    expect(hits[0]!.headers.authorization).to.equal(`Bearer ${token}`)
    expect(hits[0]!.body).to.include({ job: 'job', status: 'success' })
    expect(mails).to.have.length(1)
    expect(mails[0]).to.include({ user: 'mailer', from: 'alerts@example.test' })
    const log = engine.logs.tail({ kind: 'job', job: 'job' }, 100).join('\n')
    expect(log).to.include('notify[0] "ops-webhook" webhook')
    expect(log).to.include('notify[1] "mail-team" email via 127.0.0.1')
    await engine.stop()
  })
})

describe('notify/notifierRequest: a failure message never quotes the URL', () => {
  it('cuts the URL, its path and its query out of fetch’s own text, and names a timeout as such', () => {
    const url = 'https://hooks.example.org/services/T0/B1/s3cr3t?token=abc'
    const quoted = new TypeError(`Failed to parse URL from ${url}`)
    expect(describeFetchFailure(quoted, url, 1000)).to.equal('Failed to parse URL from https://hooks.example.org/…')
    const pathOnly = new TypeError('fetch failed', { cause: new Error('unexpected redirect from /services/T0/B1/s3cr3t?token=abc') })
    expect(describeFetchFailure(pathOnly, url, 1000)).to.equal('fetch failed: unexpected redirect from …')
    expect(describeFetchFailure(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), url, 1500)).to.equal('timed out after 1500 ms')
  })
})
