/**
 * Restore drills of videos and of a CMS as a whole (issue 25), on tar snapshots written by `createArchive`
 * from real sources: the `host-stream` source against the host emulator's stream library, a `local`
 * folder of uploads and a Payload-shaped SQLite database (tables and columns as Payload's SQLite adapter
 * names them: `images` with `filename`, `_objectkey` and `sizes_<size>_filename`, `videos` with
 * `host_data_stream_video_id`). A good snapshot passes (videos against their recorded size and sha256, the
 * CMS's documents against the restored files and GUIDs); a video altered by one byte or truncated fails
 * naming the video; an upload file or a video missing from the snapshot fails naming the document.
 */
import { expect } from 'chai'
import { mkdir, mkdtemp, rm, truncate, writeFile, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { cmsCheckSchema, type CmsCheckConfig } from '../../src/config/cmsCheckConfig.js'
import type { SourceConfig } from '../../src/config/types.js'
import { extractTo } from '../../src/restore/extractTo.js'
import { hostStreamSource } from '../../src/sources/hostStream/index.js'
import { StreamLibrarySource } from '../../src/sources/hostStream/StreamLibrarySource.js'
import { LocalSource } from '../../src/sources/local/index.js'
import { SqliteSource } from '../../src/sources/sqlite/index.js'
import type { Source } from '../../src/sources/types.js'
import { execSqlite } from '../support/sqliteDb.js'
import { drillTar, tarOf } from './support/drillTar.js'
import { libraryClient, mp4Bytes, startStreamEmulator, videosSource, type StreamEmulator } from './support/streamLibrary.js'

const never = () => new AbortController().signal

describe('restore drills of videos and of a CMS (host-stream, drill.cms)', function () {
  this.timeout(120_000)
  let emulator: StreamEmulator
  let dir: string
  const guids: Record<string, string> = {}
  const uploaded: Record<string, Buffer> = {}
  let sources: SourceConfig[]
  const cms: CmsCheckConfig = cmsCheckSchema.parse({ database: 'database', uploads: 'media', videos: 'videos' })

  /** A tar snapshot of the three sources as they are now. */
  async function snapshot(): Promise<Buffer> {
    const context = { log: () => {} }
    const live: Source[] = [
      new SqliteSource('database', join(dir, 'cms.db'), context),
      new LocalSource('media', join(dir, 'media'), [], context),
      new StreamLibrarySource(sources[2] as never, context),
    ]
    return tarOf(live)
  }
  const drill = (tar: Buffer, options: { cms?: CmsCheckConfig } = {}) => drillTar(tar, { sources, ...options }, 'bd-video-drill-')

  before(async () => {
    emulator = await startStreamEmulator({ stream: { libraryId: 3301, apiKey: 'drill-Lib-key-1' } })
    const library = libraryClient(emulator)
    for (const [key, title, size] of [
      ['launch', 'Launch film', 200_000],
      ['interview', 'Interview', 90_000],
    ] as const) {
      uploaded[key] = mp4Bytes(size)
      guids[key] = await library.video(title, uploaded[key])
    }
    dir = await mkdtemp(join(tmpdir(), 'bd-cms-drill-'))
    await mkdir(join(dir, 'media', 'images', 'k1'), { recursive: true })
    for (const name of ['images/k1/photo.jpg', 'images/k1/photo-320x240.jpg', 'images/k1/photo-768x512.jpg', 'logo.png', 'logo-320x240.jpg']) {
      await writeFile(join(dir, 'media', name), `bytes of ${name}`)
    }
    execSqlite(
      join(dir, 'cms.db'),
      `CREATE TABLE images (id integer PRIMARY KEY, alt text, _objectkey text, prefix text, filename text, mime_type text,
      sizes_thumbnail_filename text, sizes_card_filename text);
      CREATE TABLE videos (id integer PRIMARY KEY, title text, host_data_stream_video_id text, _objectkey text, filename text, mime_type text);
      CREATE TABLE _posts_v (id integer PRIMARY KEY, filename text, mime_type text);
      CREATE TABLE users (id integer PRIMARY KEY, email text);
      INSERT INTO images VALUES (1, 'Photo', 'k1', 'images', 'photo.jpg', 'image/jpeg', 'photo-320x240.jpg', 'photo-768x512.jpg');
      INSERT INTO images VALUES (2, 'Logo', NULL, NULL, 'logo.png', 'image/png', 'logo-320x240.jpg', NULL);
      INSERT INTO videos VALUES (1, 'Launch film', '${guids.launch}', NULL, 'launch.mp4', 'video/mp4');
      INSERT INTO videos VALUES (2, 'Interview', '${guids.interview}', NULL, 'interview.mp4', 'video/mp4');
      INSERT INTO videos VALUES (3, 'Not uploaded yet', NULL, NULL, NULL, NULL);
      INSERT INTO _posts_v VALUES (1, 'gone-long-ago.jpg', 'image/jpeg');`,
    )
    sources = [
      { type: 'sqlite', name: 'database', path: join(dir, 'cms.db') },
      { type: 'local', name: 'media', path: join(dir, 'media'), exclude: [] },
      videosSource(emulator),
    ] as SourceConfig[]
  })
  after(async () => {
    await emulator?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('a good snapshot: every video matches its recorded size and sha256, and the CMS check finds every file and GUID', async () => {
    const result = await drill(await snapshot(), { cms })
    expect(result.differences, result.logs.join('\n')).to.deep.equal([])
    const bytes = uploaded.launch!.length + uploaded.interview!.length
    expect(result.summary).to.include(`source "videos": 2 of 2 video(s) (${bytes} bytes) match the recorded sizes and sha256`)
    // photo (3 files) and logo (2 files) from the uploads; the two bound videos; the versions table left out.
    expect(result.summary).to.include('CMS check: 5 upload file(s) and 2 video(s) of 2 collection(s) are in the snapshot')
  })

  it('a video altered by one byte inside the snapshot fails naming the video (and the file)', async () => {
    const tar = await snapshot()
    const at = tar.indexOf(uploaded.launch!)
    expect(at).to.be.greaterThan(0)
    tar[at + 5000] = tar[at + 5000]! ^ 0xff
    const result = await drill(tar)
    expect(result.differences.join('\n')).to.match(
      new RegExp(`source "videos": video ${guids.launch} \\("Launch film"\\): ${guids.launch}/original\\.mp4: sha256 differs from the recorded [0-9a-f]{64}`),
    )
    expect(result.differences.join('\n')).to.include(`videos/${guids.launch}/original.mp4`)
    expect(result.differences.join('\n')).not.to.include(guids.interview!)
  })

  it('the video check on its own: a truncated or missing file, a broken video.json or library.json, each named', async () => {
    const tar = await snapshot()
    const scratch = await mkdtemp(join(tmpdir(), 'bd-video-check-'))
    try {
      // Unpacked by a good drill, the folder kept: then damaged on disk and checked again.
      let record: Buffer | undefined
      await extractTo(Readable.from([tar]), scratch, { signal: never(), onRecord: (bytes) => (record = bytes) })
      const recorded = (JSON.parse(record!.toString('utf8')) as { sources: Record<string, { recorded: unknown }> }).sources.videos!.recorded
      const path = (name: string) => join(scratch, 'videos', name)
      const files = [
        `${guids.launch}/original.mp4`,
        `${guids.interview}/original.mp4`,
        `${guids.launch}/video.json`,
        `${guids.interview}/video.json`,
        'library.json',
      ].map((name) => ({ name: `videos/${name}`, path: path(name) }))
      const check = () =>
        hostStreamSource.drill!.check({
          config: sources[2] as never,
          files,
          recorded: recorded as never,
          scratch,
          databaseServer: 'configured',
          log: () => {},
          signal: never(),
        })
      expect((await check()).differences).to.deep.equal([])

      await truncate(path(`${guids.interview}/original.mp4`), 1000)
      await writeFile(path(`${guids.launch}/video.json`), '{"guid": ')
      const found = (await check()).differences
      expect(found).to.have.length(2)
      expect(found).to.include(`video ${guids.launch} ("Launch film"): ${guids.launch}/video.json does not parse: Unexpected end of JSON input`)
      expect(found).to.include(
        `video ${guids.interview} ("Interview"): ${guids.interview}/original.mp4: 1000 bytes restored, the backup recorded ${uploaded.interview!.length}`,
      )
      await writeFile(path('library.json'), (await readFile(path('library.json'), 'utf8')).replace(guids.interview!, 'someone-else'))
      expect((await check()).differences).to.include(`video ${guids.interview} ("Interview"): not in the restored library.json`)
      const noRecord = await hostStreamSource.drill!.check({
        config: sources[2] as never,
        files,
        recorded: undefined,
        scratch,
        databaseServer: 'configured',
        log: () => {},
        signal: never(),
      })
      expect(noRecord.differences).to.include('the snapshot\'s record holds no list of videos for source "videos"')
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
  })

  it('an upload file or a video missing from the snapshot: the CMS check names the collection, the document and what is missing', async () => {
    const thumbnail = join(dir, 'media', 'images', 'k1', 'photo-320x240.jpg')
    await rm(thumbnail)
    // A video the CMS still names, deleted from the library before the backup.
    await libraryClient(emulator).call('DELETE', `videos/${guids.interview}`)
    try {
      const result = await drill(await snapshot(), { cms })
      expect(result.differences).to.deep.equal([
        'CMS check: collection "images", document 1: file images/k1/photo-320x240.jpg (size thumbnail) is not in the snapshot (source "media")',
        `CMS check: collection "videos", document 2: video ${guids.interview} is not in the snapshot's library (source "videos")`,
      ])
    } finally {
      await writeFile(thumbnail, 'bytes of images/k1/photo-320x240.jpg')
    }
  })

  it('collections named in the config: a missing table is named; a database kind that cannot be read is said so', async () => {
    const tar = await snapshot()
    const named = cmsCheckSchema.parse({
      ...cms,
      collections: [
        { slug: 'media-files', check: 'uploads' },
        { slug: 'images', check: 'uploads' },
      ],
    })
    const result = await drill(tar, { cms: named })
    expect(result.differences).to.deep.equal(['CMS check: collection "media-files": no table "media_files" in the restored database'])
    const wrong = await drill(tar, { cms: { ...cms, database: 'media' } })
    expect(wrong.differences).to.deep.equal([
      'CMS check: source "media" is a local source, whose kind cannot read its restored tables: the CMS check needs the job\'s database source',
    ])
  })
})
