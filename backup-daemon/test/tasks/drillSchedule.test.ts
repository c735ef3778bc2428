/**
 * Restore drills on a schedule (`jobs[].drill`, `daemon/drillSchedule.ts`), in a daemon built in-process: a
 * drill fired by its cron proves the newest snapshot and is recorded with trigger `schedule`; before the
 * first snapshot a fire is a logged skip. The config refuses a bad drill cron and an unknown drill storage.
 */
import { expect } from 'chai'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigError } from '../../src/config/ConfigError.js'
import { loadConfig } from '../../src/config/loadConfig.js'
import { createDaemon } from '../../src/daemon/createDaemon.js'
import { tempDir, waitFor } from '../engine/helpers.js'

describe('restore drills on a schedule (jobs[].drill)', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  before(async () => {
    tmp = await tempDir('bd-drill-schedule-')
    await mkdir(join(tmp.dir, 'src'))
    await writeFile(join(tmp.dir, 'src', 'a.txt'), 'proven by a schedule\n')
  })
  after(() => tmp.remove())

  const configFile = async (drill: object) => {
    const file = join(tmp.dir, 'config.yaml')
    const job = {
      name: 'site',
      sources: [{ type: 'local', name: 'files', path: './src' }],
      storages: [{ type: 'local', name: 'disk', path: './store' }],
      drill,
    }
    await writeFile(file, JSON.stringify({ dataDir: './data', server: { enabled: false }, jobs: [job] }))
    return file
  }

  it('a fire of the drill schedule drills the newest snapshot: history kind drill, trigger schedule', async () => {
    const daemon = await createDaemon(await loadConfig(await configFile({ schedule: '* * * * * *' })), { persistLogs: false })
    try {
      // Fires before the first snapshot are skipped (404), not errors; then a backup, then a scheduled drill.
      await new Promise((resolve) => setTimeout(resolve, 1200))
      expect(daemon.engine.history.list('site').filter((r) => r.kind === 'drill')).to.deep.equal([])
      daemon.engine.run('site', 'manual')
      await daemon.engine.whenIdle('site')
      const drill = await waitFor(() => daemon.engine.history.list('site').find((r) => r.kind === 'drill'), 20_000, 'a scheduled drill')
      expect(drill).to.include({ trigger: 'schedule', result: 'success' })
    } finally {
      await daemon.stop()
    }
  })

  it('refuses a drill schedule that is no cron expression, and a drill storage the job does not have', async () => {
    const error = await loadConfig(await configFile({ schedule: 'every day', storage: 'offsite' })).then(
      () => undefined,
      (err: unknown) => err,
    )
    expect(error).to.be.instanceOf(ConfigError)
    const paths = (error as ConfigError).issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n')
    expect(paths)
      .to.match(/drill\.schedule.*invalid cron expression/)
      .and.to.match(/drill\.storage.*no storage named "offsite"/)
  })
})
