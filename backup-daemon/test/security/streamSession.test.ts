/**
 * Issue 28 item 10: a stream lives no longer than its session. Against a real daemon process, a job log
 * stream, the system log stream and a progress stream opened with a session are closed by the server
 * when that session logs out (before: they kept delivering lines). Expiry is checked on `sessionEnds`
 * with a token a second from its end (the shortest configurable token lives a minute).
 */
import { expect } from 'chai'
import { sessionEnds } from '../../src/auth/sessionEnds.js'
import { openSse, type SseClient } from '../api/support/sseClient.js'
import { loginCookie, startOneFileDaemon, type RunningDaemon } from '../ui/support/realDaemon.js'

/** Reads frames until the server closes the stream; rejects when it is still open at the deadline. */
async function closedWithin(stream: SseClient, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the stream was still open ${ms} ms after the logout`)), ms)))
  try {
    await Promise.race([
      (async () => {
        while ((await stream.next()) !== undefined);
      })(),
      deadline,
    ])
  } finally {
    clearTimeout(timer)
    stream.close()
  }
}

describe('security: streams end with their session (real daemon)', function () {
  this.timeout(60_000)
  let daemon: RunningDaemon

  before(async () => {
    daemon = await startOneFileDaemon('sec-streams-')
  })
  after(async () => {
    await daemon?.stop()
  })

  const login = () => loginCookie(daemon.url)

  it('a logout closes the job log, system log and progress streams of that session, and only those', async () => {
    const cookie = await login()
    const other = await login()
    const api = `${daemon.url}/api/v1`
    const open = async (path: string, withCookie: string) => {
      const stream = await openSse(`${api}${path}`, { cookie: withCookie })
      expect(stream.response.status, path).to.equal(200)
      return stream
    }
    const jobLog = await open('/jobs/j/logs/stream?tail=1', cookie)
    const systemLog = await open('/logs/system/stream?tail=1', cookie)
    const progress = await open('/jobs/j/progress', cookie)
    const otherLog = await open('/jobs/j/logs/stream?tail=0', other)

    const logout = await fetch(`${api}/auth/logout`, { method: 'POST', headers: { cookie } })
    expect(logout.status).to.equal(200)
    await Promise.all([closedWithin(jobLog, 5000), closedWithin(systemLog, 5000), closedWithin(progress, 5000)])

    // Another session's stream still delivers: a run's first line reaches it.
    const run = await fetch(`${api}/jobs/j/run`, { method: 'POST', headers: { cookie: other } })
    expect(run.status).to.equal(202)
    const frame = await otherLog.next()
    expect(frame?.data).to.match(/run started/)
    otherLog.close()
  })
})

describe('security: sessionEnds', () => {
  it('ends a watch when the newest token of the session expires, later when a refresh extended it, at once on a logout', async () => {
    const ends = sessionEnds()
    const now = () => Date.now() / 1000
    ends.seen('a', now() + 0.3)
    ends.seen('b', now() + 0.3)
    ends.seen('b', now() + 0.8)
    ends.seen('c', now() + 60)
    const ended: string[] = []
    const watched = (sid: string) => new Promise<void>((resolve) => ends.watch(sid, () => resolve(void ended.push(sid))))
    const all = Promise.all([watched('a'), watched('b'), watched('c')])
    await watched('a')
    expect(ended).to.include('a').and.not.include('b')
    await watched('b')
    expect(ended).to.not.include('c')
    ends.end('c')
    await all
    expect(ended.filter((s) => s === 'c')).to.have.length(1)
  })
})
