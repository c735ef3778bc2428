/**
 * The original service's web client (snapr `web/src/lib/api.ts`) against our API: its request habits
 * (`Content-Type: application/json` and `Accept-Language` on every request, body-less POSTs, ids
 * percent-encoded into the path) and the fields it reads from each answer (`web/src/types/api.ts`).
 */
import { expect } from 'chai'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createApp } from '../../src/server/createApp.js'
import { heldJob, realEngine, type RealEngine } from './support/realEngine.js'
import { testConfig } from './support/testConfig.js'

/** The original client's request: same headers on everything, throws `errorData.error || HTTP <status>`. */
function originalClient(app: ReturnType<typeof createApp>) {
  let cookie = ''
  const raw = (endpoint: string, init: RequestInit = {}) =>
    app.request(`/api/v1${endpoint}`, {
      ...init,
      headers: { 'Content-Type': 'application/json', 'Accept-Language': 'ru', ...(cookie ? { cookie } : {}) },
    })
  const request = async <T>(endpoint: string, init: RequestInit = {}): Promise<T> => {
    const res = await raw(endpoint, init)
    const setCookie = res.headers.get('set-cookie')
    if (setCookie) cookie = setCookie.split(';')[0]!
    if (!res.ok) {
      const errorData = (await res.json().catch(() => ({}))) as { error?: string }
      throw new Error(errorData.error || `HTTP ${res.status}`)
    }
    return (await res.json()) as T
  }
  return { request, raw }
}

describe('api: the original web client', function () {
  this.timeout(60_000)
  let real: RealEngine | undefined
  after(() => real?.close())

  it('gets through its pages: system before login, login, jobs, job status, run, cancel, backups, downloads, logs, logout', async () => {
    // The real engine: `nightly` ran once (a whole snapshot) and holds its next run in its beforeScript; `parts`
    // wrote a split set; `never` never ran.
    real = await realEngine({ jobs: [heldJob('nightly'), { name: 'never' }, { name: 'parts', extra: '    split: { chunkSize: 65536 }\n' }] })
    const first = real.runJob('nightly')
    await real.release()
    const whole = await first
    const split = await real.runJob('parts')
    const engine = real.engine
    const app = createApp({ config: testConfig(), engine })
    const { request, raw } = originalClient(app)

    // System page (getSystem): status "ok" is "running", uptime shown when truthy, jobsCount.
    const system = await request<{ status: string; uptime: number; jobsCount: number; environment: string; version: string }>('/status')
    expect(system.status).to.equal('ok')
    expect(system.uptime).to.be.a('number')
    expect(system.jobsCount).to.equal(3)
    // Its login page shows the version under the form (login-form.tsx: `systemData?.version`, a placeholder without it).
    expect(system.version).to.match(/^\d+\.\d+\.\d+/)
    const settings = await request<{ permissions?: { allowManualRun: boolean } }>('/settings')
    expect(settings.permissions?.allowManualRun).to.equal(true)
    expect(await request('/auth/check')).to.deep.equal({ authenticated: false, authEnabled: true })

    // A refused login shows the daemon's message, not "HTTP 401".
    let refusal = ''
    await request('/auth/login', { method: 'POST', body: JSON.stringify({ username: 'admin', password: 'wrong' }) }).catch((e: Error) => (refusal = e.message))
    expect(refusal).to.equal('invalid username or password')
    await request('/auth/login', { method: 'POST', body: JSON.stringify({ username: 'admin', password: 'correct horse battery staple' }) })

    // Jobs list: status idle|running; a present lastResult with success false would be a failure.
    const { jobs } = await request<{ jobs: { name: string; status: string; lastResult?: { success: boolean } }[] }>('/jobs')
    for (const job of jobs) expect(['idle', 'running']).to.include(job.status)
    expect(jobs.find((j) => j.name === 'never')!.lastResult).to.equal(undefined)
    expect(jobs.find((j) => j.name === 'nightly')!.lastResult!.success).to.equal(true)

    // Job page: status, run (body-less POST with a JSON content type), the 409 toast, cancel.
    expect(await request(`/jobs/${encodeURIComponent('nightly')}/status`)).to.include({ status: 'idle' })
    expect(await request('/jobs/nightly/run', { method: 'POST' })).to.include({ job: 'nightly' })
    let busy = ''
    await request('/jobs/nightly/run', { method: 'POST' }).catch((e: Error) => (busy = e.message))
    expect(busy).to.equal('job "nightly" is already running')
    expect(await request('/jobs/nightly/status')).to.include({ status: 'running' })
    expect(await request('/jobs/nightly/cancel', { method: 'POST' })).to.include({ job: 'nightly' })

    // Backups tab: download by id, a split set whole by id and one part as `${id}.part-aab`.
    const { backups } = await request<{ backups: { id: string; isSplit?: boolean; partsCount?: number }[] }>('/jobs/nightly/backups')
    expect(backups.map((b) => b.id)).to.deep.equal([whole])
    const plain = await raw(`/jobs/nightly/backups/${encodeURIComponent(backups[0]!.id)}/download`)
    expect(plain.status).to.equal(200)
    expect(Buffer.from(await plain.arrayBuffer()).equals(await readFile(join(real.dir, 'backups/nightly', whole)))).to.equal(true)
    const [set] = (await request<{ backups: { id: string; isSplit?: boolean; partsCount?: number }[] }>('/jobs/parts/backups')).backups
    expect(set).to.include({ id: split, isSplit: true })
    const folder = join(
      real.dir,
      'backups/parts',
      (await readdir(join(real.dir, 'backups/parts'))).find((n) => n.includes('.parts-'))!,
    )
    const parts = await Promise.all(
      (await readdir(folder))
        .filter((n) => n.includes('.part-'))
        .sort()
        .map((n) => readFile(join(folder, n))),
    )
    expect(set!.partsCount).to.equal(parts.length).and.be.greaterThan(1)
    const setBytes = Buffer.from(await (await raw(`/jobs/parts/backups/${encodeURIComponent(set!.id)}/download`)).arrayBuffer())
    expect(setBytes.equals(Buffer.concat(parts))).to.equal(true)
    const partBytes = Buffer.from(await (await raw(`/jobs/parts/backups/${encodeURIComponent(`${set!.id}.part-aab`)}/download`)).arrayBuffer())
    expect(partBytes.equals(parts[1]!)).to.equal(true)

    // Logs tab and system logs: the tail it asks for (status strings beyond idle|running are not read).
    engine.logs.append({ kind: 'job', job: 'nightly' }, 'one line')
    const { logs } = await request<{ logs: string[] }>('/jobs/nightly/logs?tail=10000')
    expect(logs.length, 'the runs wrote their lines before this one').to.be.greaterThan(1)
    expect(logs.at(-1)).to.match(/INFO.* one line$/)
    expect(await request('/logs/system?tail=10000')).to.have.property('logs')

    await request('/auth/logout', { method: 'POST' })
    let gone = ''
    await request('/jobs').catch((e: Error) => (gone = e.message))
    expect(gone).to.match(/^authentication required/)
  })
})
