/**
 * @module test/repository/restic/resticProcess
 * The restic driver against the real `restic` binary (Debian's package; the test fails naming it when it
 * is missing): the version floor, JSON output, errors that never quote the password, cancel that lets
 * restic remove its lock, and the stale-lock rule (only this host's dead locks are removed).
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { listLocks, lockState, removeOwnDeadLocks } from '../../../src/repository/restic/resticLocks.js'
import { restic, resticEnv, resticJson, type ResticTarget } from '../../../src/repository/restic/resticProcess.js'
import { describeVersion, parseResticVersion, resticVersion, supports } from '../../../src/repository/restic/resticVersion.js'
import { tempDir } from '../../engine/helpers.js'
import { requireRestic } from '../../support/requireRestic.js'

describe('repository/restic: the restic process driver', function () {
  this.timeout(60_000)
  let temp: Awaited<ReturnType<typeof tempDir>>
  let target: ResticTarget

  before(async function () {
    await requireRestic()
    temp = await tempDir('bd-restic-')
    target = { repository: join(temp.dir, 'repo'), password: 'correct horse battery', cacheDir: join(temp.dir, 'cache') }
    await restic(target, ['init', '--repository-version', '2'])
  })
  after(() => temp?.remove())

  it('reads the installed version and says what an older one lacks', async function () {
    const version = await resticVersion()
    expect(version.major * 100 + version.minor).to.be.at.least(14)
    expect(parseResticVersion('restic 0.14.0 compiled with go1.19.8 on linux/amd64')).to.deep.include({ major: 0, minor: 14, patch: 0 })
    const old = parseResticVersion('restic 0.14.0 compiled with go1.19.8')!
    expect(supports(old, 'skipIfUnchanged')).to.equal(false)
    // One line (issue 38: three wrapped lines on every check before).
    expect(describeVersion(old)).to.equal('restic 0.14.0 (minimum 0.14; newer adds `--retry-lock` (0.16), `backup --skip-if-unchanged` (0.17))')
    expect(describeVersion(parseResticVersion('restic 0.18.1')!)).to.equal('restic 0.18.1 (minimum 0.14)')
  })

  it('passes the repository and password through the environment only', function () {
    const env = resticEnv({ ...target, env: { AWS_ACCESS_KEY_ID: 'id' } })
    expect(env.RESTIC_REPOSITORY).to.equal(target.repository)
    expect(env.RESTIC_PASSWORD).to.equal('correct horse battery')
    expect(env.AWS_ACCESS_KEY_ID).to.equal('id')
  })

  it('backs up stdin and lists the snapshot as JSON with its tags', async function () {
    await restic(target, ['backup', '--stdin', '--stdin-filename', 'db/dump.sql', '--tag', 'job=j', '--host', 'd1'], {
      stdin: Readable.from([Buffer.from('select 1;\n')]),
    })
    const snapshots = await resticJson<{ paths: string[]; tags: string[]; hostname: string }[]>(target, ['snapshots', '--tag', 'job=j'])
    expect(snapshots).to.have.length(1)
    expect(snapshots[0]).to.deep.include({ paths: ['/db/dump.sql'], tags: ['job=j'], hostname: 'd1' })
  })

  it("fails with restic's own message and never quotes the password", async function () {
    const wrong = { ...target, password: 'wrong-password-123' }
    const err = await restic(wrong, ['snapshots']).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(err?.message).to.match(/^restic snapshots exited with 1: .*wrong password/i)
    expect(err?.message).not.to.include('wrong-password-123')
    const missing = await restic({ ...target, repository: 'rest:http://admin:s3cr3t-pass@127.0.0.1:1/' }, ['snapshots']).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(missing?.message).not.to.include('s3cr3t-pass')
  })

  it('a cancelled backup ends with SIGINT and leaves no lock', async function () {
    const controller = new AbortController()
    const endless = new Readable({ read() {} })
    const timer = setInterval(() => endless.push(Buffer.alloc(1 << 20, 7)), 5)
    const run = restic(target, ['backup', '--stdin', '--stdin-filename', 'big'], { stdin: endless, signal: controller.signal })
    setTimeout(() => controller.abort(new Error('cancelled by the test')), 1500)
    const err = await run.then(
      () => undefined,
      (e: Error) => e,
    )
    clearInterval(timer)
    expect(err?.message).to.equal('cancelled by the test')
    expect(await listLocks(target)).to.deep.equal([])
  })

  it('removes the lock of a restic killed with SIGKILL on this host, and only then', async function () {
    const child = spawn('restic', ['backup', '--stdin', '--stdin-filename', 'killed'], { env: resticEnv(target), stdio: ['pipe', 'ignore', 'ignore'] })
    child.stdin.on('error', () => {})
    const feed = setInterval(() => child.stdin.write(Buffer.alloc(1 << 16, 5)), 20)
    await until(async () => (await listLocks(target)).length > 0)
    child.kill('SIGKILL')
    clearInterval(feed)
    await new Promise((resolve) => child.once('close', resolve))
    const locks = await listLocks(target)
    expect(locks, 'the killed restic left its lock').to.have.length(1)
    expect(locks[0]!.hostname).to.equal(hostname())
    expect(await lockState(locks[0]!)).to.equal('ours-dead')
    // The same lock seen as another host's: live while fresh, stale after 30 minutes, never ours.
    const foreign = { ...locks[0]!, hostname: 'other-host' }
    expect(await lockState(foreign, Date.parse(foreign.time) + 60_000)).to.equal('live')
    expect(await lockState(foreign, Date.parse(foreign.time) + 31 * 60_000)).to.equal('foreign-stale')
    const { removed, foreign: left } = await removeOwnDeadLocks(target)
    expect(removed.map((l) => l.pid)).to.deep.equal([child.pid])
    expect(left).to.deep.equal([])
    expect(await listLocks(target)).to.deep.equal([])
    // An exclusive command works again.
    await restic(target, ['forget', '--keep-last', '1', '--prune'])
  })

  it('leaves a live lock alone', async function () {
    const endless = new Readable({ read() {} })
    const timer = setInterval(() => endless.push(Buffer.alloc(1 << 16, 3)), 20)
    const controller = new AbortController()
    const run = restic(target, ['backup', '--stdin', '--stdin-filename', 'slow'], { stdin: endless, signal: controller.signal }).catch(() => {})
    await until(async () => (await listLocks(target)).length > 0)
    const locks = await listLocks(target)
    expect(locks).to.have.length(1)
    expect(await lockState(locks[0]!)).to.equal('live')
    expect((await removeOwnDeadLocks(target)).removed).to.deep.equal([])
    expect(await listLocks(target)).to.have.length(1)
    controller.abort(new Error('done'))
    clearInterval(timer)
    await run
  })
})

/** Polls `check` every 100 ms for up to 10 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('timed out waiting for restic')
}
