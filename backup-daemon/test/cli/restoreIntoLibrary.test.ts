/**
 * `backup-daemon restore JOB SNAPSHOT --to DIR --into-library --guid-map FILE` as child processes against
 * dev-app's host emulator (a real HTTP server): a `host-stream` job is run, its videos are deleted from the
 * library, then the restore unpacks the snapshot and uploads each video again (`SourceFactory.uploadRestore`),
 * writing old GUID → new GUID; each new video holds the original bytes and title. Into a library the key
 * cannot reach (`--library-id`), the restore fails naming the video and still writes the (empty) map.
 */
import { expect } from 'chai'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { tempDir } from '../engine/helpers.js'
import { writeDaemonYaml } from '../support/daemonYaml.js'
import { runCli } from '../support/runCli.js'
import { libraryClient, mp4Bytes, startStreamEmulator, type StreamEmulator } from '../sources/support/streamLibrary.js'

describe('backup-daemon restore --into-library (host-stream)', function () {
  this.timeout(120_000)
  let emulator: StreamEmulator
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let file: string
  let snapshot: string
  const uploaded = new Map<string, { title: string; bytes: Buffer }>()
  const env = { STREAM_TEST_KEY: 'restore-Lib-key-7' }

  before(async () => {
    tmp = await tempDir()
    emulator = await startStreamEmulator({ stream: { libraryId: 5101, apiKey: env.STREAM_TEST_KEY } })
    const library = libraryClient(emulator)
    for (const title of ['Launch film', 'Interview']) {
      const bytes = mp4Bytes(150_000)
      uploaded.set(await library.video(title, bytes, { caption: 'WEBVTT\n\n00:00.000 --> 00:01.000\nHi\n' }), { title, bytes })
    }
    file = await writeDaemonYaml(
      tmp.dir,
      `  - name: site
    compression: tar.gz
    sources:
      - type: host-stream
        name: videos
        apiBase: ${emulator.stream.apiBase}
        libraryId: 5101
        apiKey: env:STREAM_TEST_KEY
        pullZoneHostname: ${emulator.stream.cdnUrl}
    storages: [{ type: local, name: disk, path: ./backups }]
`,
    )
    const backup = await runCli(['run', 'site', '--config', file], { cwd: tmp.dir, env })
    expect(backup.code, backup.out).to.equal(0)
    snapshot = (await readdir(join(tmp.dir, 'backups/site'))).find((n) => n.endsWith('.manifest.json'))!.slice(0, -'.manifest.json'.length)
    // The disaster: the library lost its videos.
    for (const guid of uploaded.keys()) await library.call('DELETE', `videos/${guid}`)
  })
  after(async () => {
    await emulator?.close()
    await tmp?.remove()
  })

  it("uploads every video into the source's library and writes old GUID → new GUID", async () => {
    const mapFile = join(tmp.dir, 'guids.json')
    const restored = await runCli(['restore', 'site', snapshot, '--config', file, '--to', join(tmp.dir, 'restored'), '--into-library', '--guid-map', mapFile], {
      cwd: tmp.dir,
      env,
    })
    expect(restored.code, restored.out).to.equal(0)
    expect(restored.out).to.match(/videos: 2 uploaded, 0 skipped \(old → new ids in .*guids\.json\)/)
    const map = JSON.parse(await readFile(mapFile, 'utf8')) as Record<string, { target: { libraryId: number }; ids: Record<string, string>; skipped: string[] }>
    expect(map.videos!.target).to.deep.equal({ libraryId: 5101 })
    expect(Object.keys(map.videos!.ids).sort()).to.deep.equal([...uploaded.keys()].sort())
    const library = libraryClient(emulator)
    for (const [oldGuid, newGuid] of Object.entries(map.videos!.ids)) {
      expect(newGuid).to.not.equal(oldGuid)
      expect(restored.out).to.include(`video ${oldGuid} ("${uploaded.get(oldGuid)!.title}") restored as ${newGuid}`)
      await emulator.whenEncoded(newGuid)
      expect((await library.call<{ title: string }>('GET', `videos/${newGuid}`)).title).to.equal(uploaded.get(oldGuid)!.title)
      expect((await library.cdn(`${newGuid}/original`)).equals(uploaded.get(oldGuid)!.bytes)).to.equal(true)
      expect((await library.cdn(`${newGuid}/captions/en.vtt`)).toString()).to.include('Hi')
    }
  })

  it('fails naming the video when the library refuses it, and still writes the map', async () => {
    const mapFile = join(tmp.dir, 'guids-failed.json')
    const restored = await runCli(
      ['restore', 'site', snapshot, '--config', file, '--to', join(tmp.dir, 'restored-2'), '--into-library', '--library-id', '999', '--guid-map', mapFile],
      { cwd: tmp.dir, env },
    )
    expect(restored.code, restored.out).to.equal(1)
    expect(restored.out).to.match(/source "videos": video [0-9a-f-]+ \("(Launch film|Interview)"\): creating it failed/)
    expect(restored.out).to.include(`what was restored before is in ${mapFile}`)
    expect(restored.out).to.not.include(env.STREAM_TEST_KEY)
    const map = JSON.parse(await readFile(mapFile, 'utf8')) as Record<string, { target: unknown; ids: Record<string, string>; failed: string }>
    expect(map.videos).to.deep.include({ target: { libraryId: 999 }, ids: {} })
    expect(map.videos!.failed).to.match(/creating it failed/)
  })

  it('refuses --into-library without --to', async () => {
    const alone = await runCli(['restore', 'site', snapshot, '--config', file, '--into-library'], { cwd: tmp.dir, env })
    expect(alone.code).to.equal(2)
    expect(alone.out).to.include('--into-library goes with --to DIR')
  })
})
