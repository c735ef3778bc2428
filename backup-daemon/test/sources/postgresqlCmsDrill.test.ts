/**
 * The restore drill's CMS check (`drill.cms`) with the CMS's database on PostgreSQL, against a real cluster:
 * a Payload-shaped database (tables and columns as Payload's PostgreSQL adapter names them, in `public`:
 * `images` with `filename`, `mime_type`, `prefix` and `sizes_<size>_filename`, `videos` with
 * `host_data_stream_video_id`) dumped by the `postgresql` source, with a `local` folder of uploads and a
 * `host-stream` library of videos, in tar snapshots written by `createArchive`. The check restores the dump
 * into a scratch database (or a temporary server) and drops it: a good snapshot passes; an upload file or a
 * video missing from the snapshot fails naming the collection and the document; the same Payload tables
 * in the adapter's own schema (`schemaName`) are read too.
 */
import { expect } from 'chai'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cmsCheckSchema, type CmsCheckConfig } from '../../src/config/cmsCheckConfig.js'
import type { SourceConfig } from '../../src/config/types.js'
import { StreamLibrarySource } from '../../src/sources/hostStream/StreamLibrarySource.js'
import { LocalSource } from '../../src/sources/local/index.js'
import { PostgresqlSource, type PostgresqlSourceConfig } from '../../src/sources/postgresql/index.js'
import type { Source } from '../../src/sources/types.js'
import { drillTar, tarOf, type TarDrillOptions } from './support/drillTar.js'
import { libraryClient, mp4Bytes, startStreamEmulator, videosSource, type StreamEmulator } from './support/streamLibrary.js'
import { startPostgres, type PostgresCluster } from './support/postgresCluster.js'
import { tcpSource } from './support/postgresSource.js'

/** Payload's tables for `images` and `videos` (and a versions table and users, which the check leaves alone) in `schema`. */
const payloadTables = (schema: string, guids: Record<string, string>) => `
  CREATE SCHEMA IF NOT EXISTS ${schema};
  CREATE TABLE ${schema}.images (id serial PRIMARY KEY, alt varchar, prefix varchar, filename varchar, mime_type varchar,
    sizes_thumbnail_filename varchar, sizes_card_filename varchar, updated_at timestamptz DEFAULT now());
  CREATE TABLE ${schema}.videos (id serial PRIMARY KEY, title varchar, host_data_stream_video_id varchar, filename varchar, mime_type varchar);
  CREATE TABLE ${schema}._images_v (id serial PRIMARY KEY, filename varchar, mime_type varchar);
  CREATE TABLE ${schema}.users (id serial PRIMARY KEY, email varchar);
  INSERT INTO ${schema}.images (alt, prefix, filename, mime_type, sizes_thumbnail_filename, sizes_card_filename) VALUES
    ('Photo', 'images/k1', 'photo.jpg', 'image/jpeg', 'photo-320x240.jpg', 'photo-768x512.jpg'),
    ('Logo', NULL, 'it''s "odd", logo.png', 'image/png', 'logo-320x240.jpg', NULL);
  INSERT INTO ${schema}.videos (title, host_data_stream_video_id, filename, mime_type) VALUES
    ('Launch film', '${guids.launch}', 'launch.mp4', 'video/mp4'),
    ('Interview', '${guids.interview}', 'interview.mp4', 'video/mp4'),
    ('Not uploaded yet', NULL, NULL, NULL);
  INSERT INTO ${schema}._images_v (filename, mime_type) VALUES ('gone-long-ago.jpg', 'image/jpeg');`

describe('restore drill of a CMS on PostgreSQL (drill.cms, a real PostgreSQL cluster)', function () {
  this.timeout(180_000)
  let pg: PostgresCluster
  let emulator: StreamEmulator
  let dir: string
  const guids: Record<string, string> = {}
  let database: PostgresqlSourceConfig
  let sources: SourceConfig[]
  const cms: CmsCheckConfig = cmsCheckSchema.parse({ database: 'database', uploads: 'media', videos: 'videos' })
  const scratchDatabases = () => pg.sql('postgres', "SELECT datname FROM pg_database WHERE datname LIKE 'backup_daemon_drill_%'")

  /** A tar snapshot of the three sources as they are now. */
  async function snapshot(db = database): Promise<Buffer> {
    const context = { log: () => {} }
    const live: Source[] = [
      new PostgresqlSource(db, context),
      new LocalSource('media', join(dir, 'media'), [], context),
      new StreamLibrarySource(sources[2] as never, context),
    ]
    return tarOf(live)
  }
  const drill = (tar: Buffer, options: Partial<TarDrillOptions> = {}) => drillTar(tar, { sources, ...options }, 'bd-pgcms-drill-')

  before(async () => {
    pg = await startPostgres()
    emulator = await startStreamEmulator({ stream: { libraryId: 3302, apiKey: 'pgcms-Lib-key-1' } })
    const library = libraryClient(emulator)
    guids.launch = await library.video('Launch film', mp4Bytes(120_000))
    guids.interview = await library.video('Interview', mp4Bytes(60_000))
    dir = await mkdtemp(join(tmpdir(), 'bd-pgcms-'))
    await mkdir(join(dir, 'media', 'images', 'k1'), { recursive: true })
    for (const name of ['images/k1/photo.jpg', 'images/k1/photo-320x240.jpg', 'images/k1/photo-768x512.jpg', 'it\'s "odd", logo.png', 'logo-320x240.jpg']) {
      await writeFile(join(dir, 'media', name), `bytes of ${name}`)
    }
    await pg.sql('postgres', 'CREATE DATABASE cms')
    await pg.sql('cms', payloadTables('public', guids))
    database = tcpSource(pg, 'cms', 'database')
    sources = [database, { type: 'local', name: 'media', path: join(dir, 'media'), exclude: [] }, videosSource(emulator)] as SourceConfig[]
  })
  after(async () => {
    await emulator?.close()
    await pg?.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('a good snapshot: the CMS check restores the dump into a scratch database, finds every file and GUID, and drops it', async () => {
    const result = await drill(await snapshot(), { cms })
    expect(result.differences, result.logs.join('\n')).to.deep.equal([])
    // photo (3 files) and logo (2 files); the two bound videos; the versions table left out.
    expect(result.summary).to.include('CMS check: 5 upload file(s) and 2 video(s) of 2 collection(s) are in the snapshot')
    const log = result.logs.join('\n')
    expect(log).to.match(/CMS check: created scratch database backup_daemon_drill_\d+_[0-9a-f]{12}/)
    expect(log).to.match(/CMS check: dropped scratch database/)
    expect(await scratchDatabases()).to.equal('')
  })

  it('an upload file or a video missing from the snapshot: named by collection and document (on a temporary server, stopped after)', async () => {
    const thumbnail = join(dir, 'media', 'images', 'k1', 'photo-320x240.jpg')
    await rm(thumbnail)
    await libraryClient(emulator).call('DELETE', `videos/${guids.interview}`)
    try {
      const result = await drill(await snapshot(), { cms, databaseServer: 'temporary' })
      expect(result.differences, result.logs.join('\n')).to.deep.equal([
        'CMS check: collection "images", document 1: file images/k1/photo-320x240.jpg (size thumbnail) is not in the snapshot (source "media")',
        `CMS check: collection "videos", document 2: video ${guids.interview} is not in the snapshot's library (source "videos")`,
      ])
      expect(result.logs.join('\n')).to.match(/CMS check: stopped and removed the temporary server/)
      expect(await scratchDatabases()).to.equal('')
    } finally {
      await writeFile(thumbnail, 'bytes of images/k1/photo-320x240.jpg')
    }
  })

  it("Payload's tables in the adapter's own schema (schemaName) are read; a file missing there is named", async () => {
    await pg.sql('postgres', 'CREATE DATABASE cms_schema')
    await pg.sql('cms_schema', payloadTables('payload', guids))
    const inSchema: PostgresqlSourceConfig = { ...database, database: 'cms_schema' }
    const logo = join(dir, 'media', 'logo-320x240.jpg')
    await rm(logo)
    try {
      const uploadsOnly = cmsCheckSchema.parse({ database: 'database', uploads: 'media' })
      const result = await drill(await snapshot(inSchema), { cms: uploadsOnly, sources: [inSchema, sources[1]!, sources[2]!] })
      expect(result.differences, result.logs.join('\n')).to.deep.equal([
        'CMS check: collection "images", document 2: file logo-320x240.jpg (size thumbnail) is not in the snapshot (source "media")',
      ])
    } finally {
      await writeFile(logo, 'bytes of logo-320x240.jpg')
    }
  })
})
