/**
 * @module test/ui/support/devServer
 * DEVELOPMENT ONLY: the real HTTP app (`startServer`) over the API tests' in-memory engine double,
 * with ANSI-coloured log lines and a snapshot, to work on the UI before a real daemon exists and to
 * look at pages quickly. The browser tests use a real daemon process, not this.
 *
 * Run: `node --import tsx backup-daemon/test/ui/support/devServer.ts` (prints the URL; Ctrl-C stops).
 */
import { startServer } from '../../../src/server/startServer.js'
import { FakeEngine, fakeJob } from '../../api/support/fakeEngine.js'
import { testConfig, testPassword, testUser } from '../../api/support/testConfig.js'

const engine = new FakeEngine([
  fakeJob('nightly-files', { schedule: '0 2 * * *' }),
  fakeJob('db-every-15-min', {
    schedule: '*/15 * * * 1-5',
    status: 'running',
    lastResult: { success: false, duration: '4.1s', error: 'mongodb: connection refused' },
  }),
  fakeJob('weekly-archive', { schedule: '0 3 * * 0', active: false, lastRun: undefined, nextRun: undefined, lastResult: undefined }),
])
const ESC = '\u001b'
for (let i = 0; i < 300; i++) {
  const level = i % 10 === 0 ? `${ESC}[33mWARN${ESC}[0m` : i % 37 === 0 ? `${ESC}[1;31mERROR${ESC}[0m` : `${ESC}[32mINFO${ESC}[0m`
  engine.logs.append(
    { kind: 'job', job: 'nightly-files' },
    `2026-11-21T08:${String(i % 60).padStart(2, '0')}:00Z ${level} archived ${ESC}[36mfile-${i}.jpg${ESC}[0m <b>not bold</b>`,
  )
  engine.logs.append({ kind: 'system' }, `2026-11-21T08:00:00Z ${ESC}[32mINFO${ESC}[0m system line ${i}`)
}
engine.snapshots.set('nightly-files', [
  {
    view: {
      id: 'nightly-files-2026-11-21T02-00-00Z.tar.gz',
      name: 'nightly-files-2026-11-21T02-00-00Z.tar.gz',
      jobName: 'nightly-files',
      path: '/backups',
      size: 123456789,
      createdAt: new Date(Date.now() - 6 * 3600e3).toISOString(),
      storageType: 'local',
      isSplit: false,
      fullDownloadSupported: true,
      partsCount: 1,
      checksummed: true,
      damaged: false,
      storage: 'disk',
      storages: ['disk', 'offsite'],
    },
    bytes: Buffer.from('hello snapshot'),
  },
  {
    view: {
      id: 'nightly-files-20261120-020000.tar.gz',
      name: 'nightly-files-20261120-020000.tar.gz',
      jobName: 'nightly-files',
      path: '/backups',
      size: 5 * 1024 ** 3,
      createdAt: new Date(Date.now() - 30 * 3600e3).toISOString(),
      storageType: 's3',
      isSplit: true,
      fullDownloadSupported: true,
      partsCount: 5,
      checksummed: false,
      damaged: true,
      damageReason: 'part aae is missing',
      storage: 'offsite',
      storages: ['offsite'],
    },
    parts: ['sp', 'l', 'i', 't', '!'].map((p) => Buffer.from(p)),
  },
])
const config = testConfig({ ui: true, address: `127.0.0.1:${process.env.PORT ?? 0}`, auth: { enabled: process.env.AUTH !== 'off' } })
config.server.ui.enabled = true
const server = await startServer({ config, engine })
console.log(`dev UI at ${server.url} (user ${testUser}, password "${testPassword}")`)
let n = 0
setInterval(() => engine.logs.append({ kind: 'job', job: 'nightly-files' }, `${ESC}[35mlive${ESC}[0m line ${++n}`), 1000).unref()
process.on('SIGINT', () => void server.close().then(() => process.exit(0)))
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
