/**
 * @module test/start/daemonBackups
 * The daemon as the dev-app configures it. Issue 28 #3: its snapshots on the storage host go to a folder
 * of the CMS's zone that the public pull zone refuses: a real `backup-daemon run cms` against the
 * emulator started as main.ts starts it, then an anonymous GET of the snapshot's CDN URL gets 403 (and
 * the media beside it still 200), and the daemon warns about a host storage in a public zone without
 * such a folder. Issue 24 #15: `DEV_APP_ALLOW_RESTORE=1` turns on verify and restore, into
 * `<data folder>/restore/` (created 0700). Issue 25: the job's daily drill with the CMS check passes on
 * the snapshot `run` wrote.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { parse } from 'yaml'
import { startEmulator } from '../../src/emulator/index.js'
import { privateBackupsPath, restoreAllowed, writeDaemonConfig, type DaemonConfigInput } from '../../src/start/daemonConfig.js'

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url))
const daemonBin = path.join(repoRoot, 'backup-daemon', 'bin', 'backup-daemon.js')

/** The real command, asynchronously: the emulator it talks to runs in this process. */
function daemon(args: string[]): Promise<{ status: number | null; output: string }> {
  const child = spawn(process.execPath, [daemonBin, ...args], { env: { ...process.env, FORCE_COLOR: '' } })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, output })))
}

describe('dev-app: the daemon it configures', function () {
  this.timeout(180_000)
  let dir: string
  let emulator: Awaited<ReturnType<typeof startEmulator>>
  let input: DaemonConfigInput
  let videoGuid: string
  // An ftyp box and some media bytes: sniffed as MP4.
  const videoBytes = Buffer.concat([Buffer.from('\0\0\0\u0018ftypisom\0\0\0\0isommp41', 'latin1'), Buffer.alloc(4000, 7)])

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dev-app-daemon-'))
    // As main.ts starts it: the daemon's folder blocked on the pull zone.
    emulator = await startEmulator({
      port: 0,
      dataDir: path.join(dir, 'host'),
      storage: { zoneName: 'dev-zone', accessKey: 'zone-key' },
      pullZone: { blockedPaths: [`${privateBackupsPath}/`] },
      stream: { libraryId: 1001, apiKey: 'stream-key', encodingStepMs: 5 },
    })
    // One video in the library: the job's `videos` source archives it.
    const created = await fetch(`${emulator.stream.apiBase}/library/1001/videos`, {
      method: 'POST',
      headers: { AccessKey: 'stream-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Site film' }),
    })
    videoGuid = ((await created.json()) as { guid: string }).guid
    const put = await fetch(`${emulator.stream.apiBase}/library/1001/videos/${videoGuid}`, {
      method: 'PUT',
      headers: { AccessKey: 'stream-key' },
      body: videoBytes,
    })
    if (!put.ok) throw new Error(`video upload: ${put.status}`)
    await emulator.whenEncoded(videoGuid)
    const mediaFolder = path.join(dir, 'host', 'storage', 'dev-zone')
    mkdirSync(mediaFolder, { recursive: true })
    writeFileSync(path.join(mediaFolder, 'photo.jpg'), 'not really a jpeg')
    mkdirSync(path.join(dir, 'db'))
    writeFileSync(path.join(dir, 'db', 'cms.db'), '')
    const sqlite = spawnSync('sqlite3', [
      path.join(dir, 'db', 'cms.db'),
      // The CMS's tables as Payload's SQLite adapter names them (only the columns the drill's CMS check reads).
      `create table users(email text, hash text); insert into users values ('a@b.c', 'scrypt$x');
      create table images(id integer primary key, _objectkey text, filename text, mime_type text, sizes_thumbnail_filename text);
      insert into images values (1, null, 'photo.jpg', 'image/jpeg', null);
      create table videos(id integer primary key, host_data_stream_video_id text, filename text, mime_type text);
      insert into videos values (1, '${videoGuid}', 'film.mp4', 'video/mp4');`,
    ])
    if (sqlite.status !== 0) throw new Error(`sqlite3 (Debian package sqlite3) failed: ${sqlite.stderr}`)
    input = {
      dataDir: dir,
      port: 0,
      bindAddress: '127.0.0.1',
      username: 'admin',
      passwordHash: 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      secret: 'dev-secret',
      databaseUri: `file:${path.join(dir, 'db', 'cms.db')}`,
      mediaFolder,
      host: { endpoint: emulator.storage.endpoint, zoneName: 'dev-zone', accessKey: 'zone-key' },
      stream: { apiBase: emulator.stream.apiBase, libraryId: 1001, apiKey: 'stream-key', cdnUrl: emulator.stream.cdnUrl },
    }
  })
  after(async () => {
    await emulator?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('a snapshot on the storage host is refused to an anonymous CDN GET (403); media still served', async () => {
    const config = writeDaemonConfig(input)
    const check = await daemon(['check-config', '--config', config])
    expect(check.status, check.output).to.equal(0)
    expect(check.output).not.to.include('WARNING')
    const run = await daemon(['run', 'cms', '--config', config])
    expect(run.status, run.output).to.equal(0)
    const jobFolder = path.join(dir, 'host', 'storage', 'dev-zone', privateBackupsPath, 'cms')
    const snapshot = readdirSync(jobFolder).find((name) => name.endsWith('.tar.gz'))
    expect(snapshot, readdirSync(jobFolder).join(', ')).to.be.a('string')
    // The stream library's video is in the snapshot, with its metadata and the library's list.
    const listing = spawnSync('tar', ['-tzf', path.join(jobFolder, snapshot!)], { encoding: 'utf8' }).stdout.split('\n')
    expect(listing).to.include.members([`videos/${videoGuid}/original.mp4`, `videos/${videoGuid}/video.json`, 'videos/library.json'])
    // Nothing at the zone's root any more, where the old config put it.
    expect(readdirSync(path.join(dir, 'host', 'storage', 'dev-zone')).sort()).to.deep.equal(['photo.jpg', privateBackupsPath])

    const anonymous = await fetch(`${emulator.storage.cdnUrl}/${privateBackupsPath}/cms/${snapshot}`)
    expect(anonymous.status).to.equal(403)
    await anonymous.body?.cancel()
    const encoded = await fetch(`${emulator.storage.cdnUrl}/%70rivate-backups/cms/${snapshot}`)
    expect(encoded.status).to.equal(403)
    await encoded.body?.cancel()
    const media = await fetch(`${emulator.storage.cdnUrl}/photo.jpg`)
    expect(media.status).to.equal(200)
    await media.body?.cancel()
    // The storage API (with the zone's key) still reads it: verify and restore work.
    const verify = await daemon(['verify', 'cms', '--config', config])
    expect(verify.status, verify.output).to.equal(0)
  })

  it("the job's daily drill restores the snapshot and runs the CMS check: every image's file and every video's GUID", async () => {
    const config = writeDaemonConfig(input)
    const job = (parse(readFileSync(config, 'utf8')) as { jobs: { drill: unknown }[] }).jobs[0]!
    expect(job.drill).to.deep.equal({
      schedule: '0 1 * * *',
      cms: {
        database: 'database',
        uploads: 'media',
        videos: 'videos',
        collections: [
          { slug: 'images', check: 'uploads' },
          { slug: 'videos', check: 'videos' },
        ],
      },
    })
    const drill = await daemon(['drill', 'cms', '--storage', 'disk', '--config', config])
    expect(drill.status, drill.output).to.equal(0)
    expect(drill.output).to.include('CMS check: 1 upload file(s) and 1 video(s) of 2 collection(s) are in the snapshot')
    // MongoDB: no CMS check (the daemon reads restored SQLite and PostgreSQL databases only), the daily drill stays.
    const other = parse(readFileSync(writeDaemonConfig({ ...input, databaseUri: 'mongodb://127.0.0.1:27017/cms' }), 'utf8')) as { jobs: { drill: unknown }[] }
    expect(other.jobs[0]!.drill).to.deep.equal({ schedule: '0 1 * * *' })
  })

  it('the daemon warns when a host storage writes into a public zone without a refused folder', async () => {
    const file = path.join(dir, 'public.yaml')
    const config = parse(readFileSync(writeDaemonConfig(input), 'utf8')) as { jobs: { storages: Record<string, unknown>[] }[] }
    const host = config.jobs[0]!.storages[1]!
    delete host.path
    delete host.pullZoneBlocksPath
    writeFileSync(file, JSON.stringify(config))
    const check = await daemon(['check-config', '--config', file])
    expect(check.status, check.output).to.equal(0)
    expect(check.output).to.match(
      /notice: .*zoneIsPublic: WARNING: storage "storage-host" writes snapshots into zone "dev-zone", which a public pull zone serves/,
    )
  })

  it('DEV_APP_ALLOW_RESTORE=1 turns on verify and restore into <data folder>/restore', async () => {
    expect(restoreAllowed({ DEV_APP_ALLOW_RESTORE: '1' })).to.equal(true)
    expect(restoreAllowed({})).to.equal(false)
    const off = parse(readFileSync(writeDaemonConfig(input), 'utf8')) as { server: { permissions: { allowRestore: boolean } }; restore?: unknown }
    expect(off.server.permissions.allowRestore).to.equal(false)
    expect(off.restore).to.equal(undefined)
    const file = writeDaemonConfig({ ...input, allowRestore: restoreAllowed({ DEV_APP_ALLOW_RESTORE: '1' }) })
    const on = parse(readFileSync(file, 'utf8')) as { server: { permissions: { allowRestore: boolean } }; restore: { roots: string[] } }
    expect(on.server.permissions.allowRestore).to.equal(true)
    expect(on.restore.roots).to.deep.equal([path.join(dir, 'restore')])
    expect(statSync(path.join(dir, 'restore')).mode & 0o777).to.equal(0o700)
    const check = await daemon(['check-config', '--config', file])
    expect(check.status, check.output).to.equal(0)
  })
})
