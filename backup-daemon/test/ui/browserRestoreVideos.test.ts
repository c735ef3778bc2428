/**
 * Browser test of a whole-site restore's video step from the daemon's UI (real daemon, the dev-app's host
 * emulator, Chromium): a job backs up a stream library, the library loses its videos, and the operator
 * restores the snapshot into a folder with "Then upload the job's videos back into their library" ticked.
 * The dialog says what will happen, the result on screen names the uploads and the id map, and the
 * library holds each video again under a new id with its title and original bytes, as `guid-map.json`
 * in the folder says.
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { libraryClient, mp4Bytes, startStreamEmulator, type StreamEmulator } from '../sources/support/streamLibrary.js'
import { launchBrowser, saveScreenshot } from './support/browser.js'
import { startRestoringDaemon, type RunningDaemon } from './support/realDaemon.js'
import { openJourney } from './support/uiJourney.js'

describe('web UI: restore a snapshot and upload its videos back into the library (real daemon, emulator, Chromium)', function () {
  this.timeout(120_000)
  let browser: Browser | undefined
  let daemon: RunningDaemon | undefined
  let emulator: StreamEmulator | undefined
  let page: Page
  let dir: string
  const apiKey = 'ui-restore-Lib-key-9'
  const uploaded = new Map<string, { title: string; bytes: Buffer }>()

  before(async function () {
    browser = await launchBrowser()
    emulator = await startStreamEmulator({ stream: { libraryId: 5301, apiKey } })
    const library = libraryClient(emulator)
    for (const title of ['Launch film', 'Interview']) {
      const bytes = mp4Bytes(120_000)
      uploaded.set(await library.video(title, bytes), { title, bytes })
    }
    dir = mkdtempSync(join(tmpdir(), 'ui-restore-videos-'))
    mkdirSync(join(dir, 'restores'))
    const source = { type: 'host-stream', name: 'videos', apiBase: emulator.stream.apiBase, libraryId: 5301, apiKey, pullZoneHostname: emulator.stream.cdnUrl }
    daemon = await startRestoringDaemon(dir, {
      secret: 'ui-restore-videos-secret-0123456789',
      restore: { roots: [join(dir, 'restores')] },
      job: { name: 'media', sources: [source] },
    })
    // The disaster: the library lost its videos.
    for (const guid of uploaded.keys()) await library.call('DELETE', `videos/${guid}`)
    ;({ page } = await openJourney(browser, daemon, { loggedIn: false }))
  })

  after(async () => {
    await browser?.close()
    await daemon?.stop()
    await emulator?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('ticks the upload, sees the plan and the result, and the library holds the videos again under new ids', async () => {
    await page.goto('/jobs/media')
    const row = page.locator('tr[data-snapshot]').first()
    await row.waitFor()
    const name = (await row.getAttribute('data-snapshot'))!
    await page.getByRole('button', { name: `Restore ${name}` }).click()
    const dialog = page.getByRole('dialog', { name: `Restore ${name}` })
    await dialog.waitFor()
    const target = join(dir, 'restores', 'site')
    await dialog.getByLabel(/^Folder/).fill(target)
    await dialog.getByLabel("Then upload the job's videos back into their library").check()
    expect(await dialog.getByTestId('restore-plan').textContent())
      .to.include('uploaded from that folder into its library as a new video')
      .and.include('guid-map.json')
    await saveScreenshot(page, 'daemon-restore-videos-confirm')
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click()
    await dialog.locator('[data-task-status="success"]').waitFor({ timeout: 90_000 })
    const result = (await dialog.locator('.task-result').textContent())!
    await saveScreenshot(page, 'daemon-restore-videos-result')
    expect(result).to.include(`into ${target}`).and.include('videos: 2 uploaded, 0 skipped').and.include(join(target, 'guid-map.json'))
    expect(result).to.not.include(apiKey)

    const map = JSON.parse(readFileSync(join(target, 'guid-map.json'), 'utf8')) as Record<
      string,
      { target: { libraryId: number }; ids: Record<string, string> }
    >
    expect(map.videos!.target).to.deep.equal({ libraryId: 5301 })
    expect(Object.keys(map.videos!.ids).sort()).to.deep.equal([...uploaded.keys()].sort())
    const library = libraryClient(emulator!)
    for (const [oldGuid, newGuid] of Object.entries(map.videos!.ids)) {
      expect(newGuid).to.not.equal(oldGuid)
      await emulator!.whenEncoded(newGuid)
      expect((await library.call<{ title: string }>('GET', `videos/${newGuid}`)).title).to.equal(uploaded.get(oldGuid)!.title)
      expect((await library.cdn(`${newGuid}/original`)).equals(uploaded.get(oldGuid)!.bytes)).to.equal(true)
    }
  })
})
