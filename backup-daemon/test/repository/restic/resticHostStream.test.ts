/**
 * @module test/repository/restic/resticHostStream
 * The `host-stream` source with a `syncPath` mirror into a restic repository (issue 27): the mirror is
 * synced and backed up as a folder (a path snapshot, not a `<source>.tar` dump), and restores to the
 * mirror's tree with the uploaded bytes; a second run downloads nothing. Without `syncPath` the source has
 * no folder to hand over (`tree` is undefined) and goes the dump way.
 */
import { expect } from 'chai'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { resticJson } from '../../../src/repository/restic/resticProcess.js'
import { hostStreamSourceSchema } from '../../../src/sources/hostStream/schema.js'
import { StreamLibrarySource } from '../../../src/sources/hostStream/StreamLibrarySource.js'
import { tempDir } from '../../engine/helpers.js'
import { libraryClient, mp4Bytes, startStreamEmulator, type StreamEmulator } from '../../sources/support/streamLibrary.js'
import { runCli } from '../../support/runCli.js'
import { treeOf } from './support/treeOf.js'
import { requireRestic } from '../../support/requireRestic.js'

describe('restic storage: the host-stream source through its mirror folder', function () {
  this.timeout(180_000)
  let tmp: { dir: string; remove(): Promise<void> }
  let emulator: StreamEmulator
  const requests: string[] = []
  const uploaded = new Map<string, Buffer>()
  const originals = () => requests.filter((line) => /^GET \/stream-cdn\/\d+\/[^/]+\/original 200/.test(line)).length

  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-stream-')
    emulator = await startStreamEmulator({
      stream: { libraryId: 7207, apiKey: 'restic-Lib-key-7' },
      log: (line) => requests.push(line.replace('[host-emulator] ', '')),
    })
    const library = libraryClient(emulator)
    for (const [title, size] of [
      ['One', 60_000],
      ['Two', 90_000],
    ] as const) {
      const bytes = mp4Bytes(size)
      uploaded.set(await library.video(title, bytes), bytes)
    }
  })
  after(async () => {
    await emulator?.close()
    await tmp?.remove()
  })

  const sourceYaml = (syncPath?: string) =>
    `{ type: host-stream, name: videos, apiBase: "${emulator.stream.apiBase}", libraryId: 7207, apiKey: restic-Lib-key-7, pullZoneHostname: "${emulator.stream.cdnUrl}"${syncPath ? `, syncPath: ${syncPath}` : ''} }`

  it('tree() is the synced mirror with syncPath, undefined without', async () => {
    const base = {
      type: 'host-stream',
      name: 'videos',
      apiBase: emulator.stream.apiBase,
      libraryId: 7207,
      apiKey: 'restic-Lib-key-7',
      pullZoneHostname: emulator.stream.cdnUrl,
    }
    const context = { log: () => {} }
    const signal = new AbortController().signal
    expect(await new StreamLibrarySource(hostStreamSourceSchema.parse(base), context).tree(signal)).to.equal(undefined)
    const mirror = join(tmp.dir, 'unit-mirror')
    const tree = await new StreamLibrarySource(hostStreamSourceSchema.parse({ ...base, syncPath: mirror }), context).tree(signal)
    expect(tree).to.deep.equal({ path: mirror })
    for (const [guid, bytes] of uploaded) expect((await readFile(join(mirror, guid, 'original.mp4'))).equals(bytes), guid).to.equal(true)
  })

  it('backs the mirror up as a path; it restores with the uploaded bytes; a second run downloads nothing', async () => {
    const file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(
      file,
      `dataDir: ./data
jobs:
  - name: stream
    sources:
      - ${sourceYaml('./mirror')}
    storages:
      - { type: restic, name: dedup, repository: ./repo, password: stream-pass }
`,
    )
    const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tmp.dir })
    const run = await cli('run', 'stream')
    expect(run.code, run.out).to.equal(0)
    const snapshots = await resticJson<{ paths: string[]; tags: string[] }[]>(
      { repository: join(tmp.dir, 'repo'), password: 'stream-pass', cacheDir: join(tmp.dir, 'cache') },
      ['snapshots', '--no-lock', '--tag', 'source=videos'],
    )
    expect(snapshots).to.have.length(1)
    expect(snapshots[0]!.paths).to.deep.equal([join(tmp.dir, 'mirror')])
    expect(snapshots[0]!.tags).to.not.include('dump')

    const name = JSON.parse((await cli('snapshots', 'stream', '--json')).out.trim()).name as string
    const restore = await cli('restore', 'stream', name, '--to', './out')
    expect(restore.code, restore.out).to.equal(0)
    const mirror = await treeOf(join(tmp.dir, 'mirror'))
    expect(await treeOf(join(tmp.dir, 'out/videos'))).to.deep.equal(mirror)
    for (const [guid, bytes] of uploaded) expect((await readFile(join(tmp.dir, 'out/videos', guid, 'original.mp4'))).equals(bytes), guid).to.equal(true)

    const before = originals()
    const again = await cli('run', 'stream')
    expect(again.code, again.out).to.equal(0)
    expect(originals() - before, again.out).to.equal(0)
    expect(again.out).to.match(/source "videos": [\d.]+ MiB read, 0\.0 MiB added/)
  })
})
