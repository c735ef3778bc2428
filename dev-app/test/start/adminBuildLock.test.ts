/**
 * Two dev-app starts at once build the admin panel once (`withBuildLock`): the second waits, then finds the
 * build current; a lock left by a start that died is taken over.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { expect } from 'chai'

import { withBuildLock } from '../../src/start/adminBuild.js'

describe('dev-app start: the admin build lock', () => {
  let appRoot: string
  beforeEach(() => (appRoot = mkdtempSync(path.join(tmpdir(), 'dev-app-lock-'))))
  afterEach(() => rmSync(appRoot, { recursive: true, force: true }))

  it('runs two builds one after the other, the second told it waits', async () => {
    const events: string[] = []
    const build = (name: string) => async () => {
      events.push(`${name} starts`)
      await new Promise((resolve) => setTimeout(resolve, 300))
      events.push(`${name} ends`)
    }
    await Promise.all([withBuildLock(appRoot, build('a')), withBuildLock(appRoot, build('b'), () => events.push('b waits'))])
    // Whether b is told it waits before or after a starts is the scheduler's; b never starts before a ends.
    expect(events.filter((e) => e !== 'b waits')).to.deep.equal(['a starts', 'a ends', 'b starts', 'b ends'])
    expect(events.indexOf('b waits')).to.be.within(0, events.indexOf('a ends'))
    expect(existsSync(path.join(appRoot, '.admin-build.lock'))).to.equal(false)
  })

  it('takes over a lock whose owner died, and releases it when the build fails', async () => {
    mkdirSync(path.join(appRoot, '.admin-build.lock'))
    // A pid far above the kernel's default pid_max: no process has it.
    writeFileSync(path.join(appRoot, '.admin-build.lock', 'pid'), '99999999')
    const failed = await withBuildLock(appRoot, async () => {
      throw new Error('next build failed')
    }).catch((err: Error) => err.message)
    expect(failed).to.equal('next build failed')
    expect(existsSync(path.join(appRoot, '.admin-build.lock'))).to.equal(false)
  })
})
