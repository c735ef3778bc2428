/**
 * The restore matrix's corpus of crafted snapshots (issue 37: "a snapshot is untrusted input everywhere it
 * is read"): snapshots written into a storage as an attacker with write access to it would write them (tar
 * bytes and a manifest whose sha256 matches), restored through the API, the CLI and a drill. Each must
 * restore nothing outside its target and read nothing outside its snapshot, and say why it refused, naming
 * the entry and the rule without an internal path (`/proc/self/fd/N`).
 *
 * - tar entries: an absolute name, `..`, an entry through a link entry, a hard link out;
 * - a manifest whose part key climbs out of the job's folder to a file of the attacker's choosing;
 * - a record naming a path with `..` (a drill must not read it);
 * - `video.json` whose `archived.file` or `captions[].file` climbs out, or goes through a link inside the
 *   snapshot, restored `intoLibrary` (nothing of the host may reach the library);
 * - MariaDB dumps that leave their database with dynamic SQL, restored into `restore_tgt` while database
 *   `other` has a table that must survive;
 * - restic runs written with plain restic (`support/craftedResticRun`): a dump source's tar with an absolute
 *   entry, `..`, a hard link out, and an entry through the link a folder source's tree (backed up by restic
 *   from a prepared folder) holds; a dump whose bytes are not what its record says (restic's check passes:
 *   only the drill's comparison can tell); a flipped byte in a pack of another repository.
 *
 * Cells failing today for a known bug are in `awaitingFix` (they must still fail so). The cells run side by
 * side once the set-up is done (`planned`), three at a time, on lanes where they must not overlap: one job's
 * API tasks in order, the cases of one restic repository (its check locks it), the video cases (they read
 * the one library), the SQL cases (they share the MariaDB databases).
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { get as httpGet, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { hashPassword } from '../../src/auth/password.js'
import { spawnDaemon, type DaemonProcess } from '../api/support/daemonProcess.js'
import { startMariadbServer, type MariadbServer } from '../support/mariadbServer.js'
import { requireRestic } from '../support/requireRestic.js'
import { runCli } from '../support/runCli.js'
import { execSqlite } from '../support/sqliteDb.js'
import { libraryClient, mp4Bytes, startStreamEmulator, type StreamEmulator } from '../sources/support/streamLibrary.js'
import { ended, taskClient, type TaskClient } from '../tasks/support.js'
import { cell, type AwaitingFix } from './support/awaitingFix.js'
import { initRestic, plantResticRun, type ResticRepository } from './support/craftedResticRun.js'
import { plantSnapshot, tarOf, type CraftedEntry } from './support/craftedSnapshot.js'
import { stepQueue } from './support/stepQueue.js'

const operator = { username: 'operator', password: 'crafted operator password' }

/** Cells that fail today for a known bug: each must still fail so. */
export const awaitingFix: AwaitingFix[] = [
  {
    cells: 'crafted/archive-flipped-byte/download',
    bug: 'damage is not visible: a download of a damaged archive (not yet verified) completes with status 200 and every byte; repository/archives/checkedStream.ts fails only in flush, after the last chunk went out, so a client that has its Content-Length bytes sees no error (the connection is cut after the response)',
    message: /^the download of a damaged archive completed: status 200, all \d+ bytes, no error$/,
  },
]

describe('restore matrix: crafted snapshots restore nothing outside their target and read nothing outside their snapshot', function () {
  this.timeout(120_000)
  let dir: string
  let storage: string
  let root: string
  let outside: string
  let secretPath: string
  let secret: Buffer
  let configFile: string
  let daemon: DaemonProcess | undefined
  let api: TaskClient
  let maria: MariadbServer
  let emulator: StreamEmulator
  const snapshots = new Map<string, string>()
  let damagedPack: string
  const jobs: Record<string, unknown>[] = []

  /** A job whose one storage is the crafted storage folder (or a restic repository). */
  const job = (name: string, sources: unknown[], storages: unknown[] = [{ type: 'local', name: 'disk', path: storage }]) =>
    jobs.push({ name, sources, storages })
  const daemonId = 'c0ffee0c0ffee0c0'

  /** Each cell's body and lane, started at the end of `before`; its test waits for its outcome. */
  const plans = new Map<string, { lane: string; body: () => Promise<void> }>()
  const outcomes = new Map<string, Promise<void>>()
  const planned = (id: string, lane: string, body: () => Promise<void>) => {
    plans.set(id, { lane, body })
    cell(awaitingFix, id, () => outcomes.get(id) ?? Promise.reject(new Error(`cell ${id} was never started (the set-up failed)`)))
  }

  before(async function () {
    this.timeout(300_000)
    dir = mkdtempSync(join(tmpdir(), 'bd-crafted-'))
    storage = join(dir, 'storage')
    root = join(dir, 'restores')
    outside = join(dir, 'outside')
    for (const folder of [storage, root, outside, join(dir, 'src'), join(dir, 'data')]) mkdirSync(folder)
    // What an attacker wants to read: a credentials file of the daemon's host, 0600.
    secretPath = join(dir, 'credentials.json')
    secret = Buffer.from(`{"secret":"${randomBytes(16).toString('hex')}"}\n`)
    writeFileSync(secretPath, secret, { mode: 0o600 })
    // The servers start, and the restic runs are written with plain restic, while the archives are made.
    const serversUp = Promise.all([startMariadbServer(), startStreamEmulator({ stream: { libraryId: 5151, apiKey: 'crafted-Stream-key-3' } })])
    serversUp.catch(() => {})

    const files = [{ type: 'local', name: 'files', path: join(dir, 'src') }]
    const resticPlanted = plantResticRuns(files)
    resticPlanted.catch(() => {})
    const climb = (path: string) => `${'../'.repeat(24)}${path.slice(1)}`
    const tarCases: Record<string, CraftedEntry[]> = {
      'tar-absolute': [{ name: `${outside}/absolute.txt`, data: 'written outside' }],
      'tar-dotdot': [{ name: 'files/../../../outside/dotdot.txt', data: 'written outside' }],
      'tar-through-link': [
        { name: 'files/lnk', type: 'symlink', linkname: outside },
        { name: 'files/lnk/through.txt', data: 'written outside' },
      ],
      'tar-hard-link': [{ name: 'files/hard', type: 'link', linkname: secretPath }],
    }
    for (const [name, entries] of Object.entries(tarCases)) {
      job(`c-${name}`, files)
      snapshots.set(name, plantSnapshot(storage, `c-${name}`, await tarOf([{ name: 'files/ok.txt', data: 'fine' }, ...entries])))
    }

    // The manifest's part is the attacker's own tar, placed next to the storage, reached by `..` from the job's folder.
    job('c-manifest-dotdot', files)
    const stolen = await tarOf([{ name: 'files/stolen.txt', data: secret }])
    writeFileSync(join(dir, 'planted.tar'), stolen)
    snapshots.set(
      'manifest-dotdot',
      plantSnapshot(storage, 'c-manifest-dotdot', await tarOf([{ name: 'files/decoy.txt', data: 'decoy' }]), {
        partKey: 'c-manifest-dotdot/../../planted.tar',
        manifestBytes: stolen,
      }),
    )

    // One flipped byte in an archive after its manifest was written (its sha256 is the intact bytes').
    job('c-archive-flipped-byte', files)
    const flipped = plantSnapshot(storage, 'c-archive-flipped-byte', await tarOf([{ name: 'files/big.txt', data: randomBytes(300_000).toString('hex') }]))
    snapshots.set('archive-flipped-byte', flipped)
    const archiveFile = join(storage, 'c-archive-flipped-byte', flipped)
    const archiveBytes = readFileSync(archiveFile)
    archiveBytes[2000] = archiveBytes[2000]! ^ 0x01
    writeFileSync(archiveFile, archiveBytes)

    // The record names the host's secret by `..` with its real size and crc32: a drill reading it would pass.
    job('c-record-dotdot', files)
    const ok = Buffer.from('fine')
    const record = {
      version: 1,
      digest: 'crc32',
      files: [
        ['files/ok.txt', ok.length, hex(crc32(ok))],
        [`files/${climb(secretPath)}`, secret.length, hex(crc32(secret))],
      ],
      sources: {},
    }
    snapshots.set(
      'record-dotdot',
      plantSnapshot(
        storage,
        'c-record-dotdot',
        await tarOf([
          { name: 'files/ok.txt', data: ok },
          { name: '.backup-daemon/record.json', data: JSON.stringify(record) },
        ]),
      ),
    )

    ;[maria, emulator] = await serversUp
    const videos = [
      {
        type: 'host-stream',
        name: 'videos',
        apiBase: emulator.stream.apiBase,
        libraryId: emulator.stream.libraryId,
        apiKey: emulator.stream.apiKey,
        pullZoneHostname: emulator.stream.cdnUrl,
      },
    ]
    const guid = '0b5e1c9e-0000-4000-8000-000000000001'
    const videoCase = (archived: string, caption: string, extra: CraftedEntry[] = []) =>
      tarOf([
        {
          name: 'videos/library.json',
          data: JSON.stringify({
            libraryId: 5151,
            videoCount: 1,
            videos: [{ guid, title: 'crafted', file: archived, kind: 'original', size: 1, sha256: null }],
          }),
        },
        {
          name: `videos/${guid}/video.json`,
          data: JSON.stringify({
            guid,
            title: 'crafted',
            description: null,
            collection: null,
            chapters: [],
            moments: [],
            metaTags: [],
            captions: [{ srclang: 'en', label: 'English', file: caption }],
            archived: { file: archived, kind: 'original', size: 1, sha256: '' },
          }),
        },
        { name: `videos/${guid}/original.mp4`, data: mp4Bytes(2000) },
        { name: `videos/${guid}/captions/en.vtt`, data: 'WEBVTT\n' },
        ...extra,
      ])
    const videoCases: Record<string, Promise<Buffer>> = {
      'video-archived-dotdot': videoCase(climb(secretPath), 'captions/en.vtt'),
      'video-caption-dotdot': videoCase('original.mp4', climb(secretPath)),
      'video-through-link': videoCase('link.mp4', 'captions/en.vtt', [{ name: `videos/${guid}/link.mp4`, type: 'symlink', linkname: secretPath }]),
    }
    for (const [name, archive] of Object.entries(videoCases)) {
      job(`c-${name}`, videos)
      snapshots.set(name, plantSnapshot(storage, `c-${name}`, await archive))
    }

    await maria.sql('CREATE DATABASE shop; CREATE DATABASE other')
    await maria.sql("CREATE TABLE victim (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO victim VALUES (1, 'must survive')", 'other')
    const mariaSource = [
      { type: 'mariadb', name: 'maria', host: '127.0.0.1', port: maria.port, username: maria.username, password: maria.password, database: 'shop' },
    ]
    const sqlCases: Record<string, string> = {
      'sql-set-prepare-execute': "SET @q=CONCAT('USE ','other'); PREPARE s FROM @q; EXECUTE s;",
      'sql-execute-immediate': "EXECUTE IMMEDIATE CONCAT('US','E other');",
      'sql-prepare-literal': "PREPARE s FROM 'USE other'; EXECUTE s;",
    }
    for (const [name, sql] of Object.entries(sqlCases)) {
      job(`c-${name}`, mariaSource)
      const dump = `CREATE TABLE t1 (id INT);\nINSERT INTO t1 VALUES (1);\n${sql}\nDROP TABLE IF EXISTS victim;\n`
      snapshots.set(name, plantSnapshot(storage, `c-${name}`, await tarOf([{ name: 'maria/shop.sql', data: dump }])))
    }

    await resticPlanted

    const config = {
      dataDir: join(dir, 'data'),
      server: {
        address: '127.0.0.1:0',
        auth: { enabled: true, username: operator.username, password: await hashPassword(operator.password) },
        permissions: { allowRestore: true, allowBackupDownload: true },
        ui: { enabled: false },
      },
      restore: {
        roots: [root],
        databases: {
          target: { type: 'mariadb', database: 'restore_tgt', host: '127.0.0.1', port: maria.port, username: maria.username, password: maria.password },
        },
      },
      jobs,
    }
    configFile = join(dir, 'backup-daemon.yaml')
    writeFileSync(configFile, JSON.stringify(config, null, 2))
    // The id the restic runs were tagged with: the daemon lists them as its own.
    writeFileSync(join(dir, 'data', 'daemon-id'), `${daemonId}\n`, { mode: 0o600 })
    daemon = await spawnDaemon(configFile)
    api = await taskClient(daemon, operator.username, operator.password, { maxPollMs: 200 })
    const queue = stepQueue(Number(process.env.RESTORE_MATRIX_SLOTS ?? 3))
    for (const [id, { lane, body }] of plans) {
      const outcome = queue.add(lane, body, id)
      outcome.catch(() => {})
      outcomes.set(id, outcome)
    }
  })

  after(async function () {
    this.timeout(60_000)
    await Promise.allSettled(outcomes.values())
    if (daemon) await daemon.stop()
    await Promise.allSettled([maria?.stop(), emulator?.close()])
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** The task's error (it must not succeed), or the CLI's output (it must exit non-zero). */
  const apiRefuses = async (name: string, action: string, body?: unknown) => {
    const job = `c-${name}`
    const path = action === 'drill' ? `/jobs/${job}/drill` : `/jobs/${job}/backups/${encodeURIComponent(snapshots.get(name)!)}/${action}`
    const res = await api.post(path, body)
    expect(res.status, await res.clone().text()).to.equal(202)
    const task = await api.waitTask(job, ended)
    expect(task.status, `the ${action} of a crafted snapshot must not succeed: ${task.summary}`).to.equal('failed')
    return task.error ?? ''
  }
  const cliRefuses = async (args: string[]) => {
    const result = await runCli([...args, '--config', configFile])
    expect(result.code, result.out).to.equal(1)
    return result.out
  }
  /** Nothing was created outside the target: the outside folder empty, the secret file as it was. */
  const nothingOutside = () => {
    expect(readdirSync(outside)).to.deep.equal([])
    expect(readFileSync(secretPath).equals(secret)).to.equal(true)
  }
  /** The refusal names the entry and says why, and shows no internal path. */
  const saysWhy = (message: string, entry: string) => {
    expect(message).to.include(entry)
    if (/\/proc\/self\/fd\//.test(message)) throw new Error(`the refusal shows an internal path: ${message}`)
    if (/drills\/drill-/.test(message)) throw new Error(`the refusal names the scratch folder: ${message}`)
  }

  /**
   * A snapshot's download on a connection of its own (one the daemon cuts off must not break the next
   * request): its status, headers and body, and whether the body came whole (its end, Content-Length bytes).
   */
  async function download(job: string, snapshot: string) {
    const url = new URL(`${daemon!.url}/api/v1/jobs/${job}/backups/${encodeURIComponent(snapshot)}/download`)
    const cookie = await api.cookie()
    return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer; whole: boolean }>((resolve, reject) => {
      const request = httpGet(url, { agent: false, headers: { cookie } }, (res) => {
        const chunks: Buffer[] = []
        let ended = false
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => (ended = true))
        res.on('error', () => {})
        res.on('close', () => {
          const body = Buffer.concat(chunks)
          const length = res.headers['content-length']
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body,
            whole: ended && !res.errored && (length === undefined || Number(length) === body.length),
          })
        })
      })
      request.on('error', reject)
    })
  }

  /**
   * The restic runs, written with plain restic into `<dir>/restic` (and one into `<dir>/restic-damaged`) before
   * the daemon starts, tagged with its id. Each job has a folder source `files` and a SQLite source `db`.
   */
  async function plantResticRuns(files: unknown[]) {
    await requireRestic()
    const repo: ResticRepository = { repository: join(dir, 'restic'), password: 'crafted restic password' }
    const damagedRepo: ResticRepository = { repository: join(dir, 'restic-damaged'), password: repo.password }
    await Promise.all([initRestic(repo), initRestic(damagedRepo)])
    const sqlite = join(dir, 'app.db')
    execSqlite(sqlite, "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('fine')")
    const sources = [...files, { type: 'sqlite', name: 'db', path: sqlite }]
    const resticJob = (name: string, on = repo) => job(`c-${name}`, sources, [{ type: 'restic', name: 'restic', ...on }])
    const dump = async (name: string, entries: CraftedEntry[], trees?: { source: string; folder: string }[]) => {
      resticJob(name)
      const tar = await tarOf([{ name: 'db/ok.txt', data: 'fine' }, ...entries])
      snapshots.set(name, await plantResticRun(repo, { job: `c-${name}`, daemon: daemonId, dumps: [{ source: 'db', tar }], ...(trees && { trees }) }))
    }
    await dump('restic-absolute', [{ name: `${outside}/absolute.txt`, data: 'written outside' }])
    await dump('restic-dotdot', [{ name: 'db/../../../outside/dotdot.txt', data: 'written outside' }])
    await dump('restic-hard-link', [{ name: 'db/hard', type: 'link', linkname: secretPath }])
    // restic's own tree of a prepared folder holds the link out; the dump's entry goes through it.
    const prepared = join(dir, 'prepared')
    mkdirSync(prepared)
    writeFileSync(join(prepared, 'ok.txt'), 'fine')
    symlinkSync(outside, join(prepared, 'lnk'))
    await dump('restic-through-link', [{ name: 'files/lnk/through.txt', data: 'written outside' }], [{ source: 'files', folder: prepared }])

    // Stored bytes that are not what the backup recorded: one byte of the file differs from its record's crc32.
    resticJob('restic-record-differs')
    const recorded = Buffer.from('the bytes the backup read\n')
    const stored = Buffer.from(recorded)
    stored[4] = stored[4]! ^ 0x20
    const record = { version: 1, digest: 'crc32', files: [['db/notes.txt', recorded.length, hex(crc32(recorded))]], sources: {} }
    const lying = await tarOf([
      { name: 'db/notes.txt', data: stored },
      { name: '.backup-daemon/record.json', data: JSON.stringify(record) },
    ])
    snapshots.set(
      'restic-record-differs',
      await plantResticRun(repo, { job: 'c-restic-record-differs', daemon: daemonId, dumps: [{ source: 'db', tar: lying }] }),
    )

    // One flipped byte in the pack holding a 70 kB file: restic's check finds it.
    resticJob('restic-damaged-pack', damagedRepo)
    const big = { name: 'db/big.bin', data: randomBytes(70_000) }
    const whole = await tarOf([big, { name: '.backup-daemon/record.json', data: JSON.stringify({ version: 1, digest: 'crc32', files: [], sources: {} }) }])
    snapshots.set(
      'restic-damaged-pack',
      await plantResticRun(damagedRepo, { job: 'c-restic-damaged-pack', daemon: daemonId, dumps: [{ source: 'db', tar: whole }] }),
    )
    const data = join(damagedRepo.repository, 'data')
    const packs = readdirSync(data).flatMap((sub) => readdirSync(join(data, sub)).map((name) => join(data, sub, name)))
    damagedPack = packs.sort((a, b) => readFileSync(b).length - readFileSync(a).length)[0]!
    const bytes = readFileSync(damagedPack)
    bytes[100] = bytes[100]! ^ 0xff
    writeFileSync(damagedPack, bytes)
  }

  const tarEntries: Record<string, string> = {
    'tar-absolute': 'absolute.txt',
    'tar-dotdot': 'files/../../../outside/dotdot.txt',
    'tar-through-link': 'files/lnk/through.txt',
    'tar-hard-link': 'files/hard',
    'restic-absolute': 'absolute.txt',
    'restic-dotdot': 'db/../../../outside/dotdot.txt',
    'restic-through-link': 'files/lnk/through.txt',
    'restic-hard-link': 'db/hard',
  }
  for (const [name, entry] of Object.entries(tarEntries)) {
    // The restic cases share one repository: their checks would take turns at its lock anyway.
    const lane = (path: string) => (name.startsWith('restic-') ? 'restic' : `${path}-${name}`)
    describe(name, function () {
      planned(`crafted/${name}/api`, lane('api'), async () => {
        const target = join(root, `${name}-api`)
        const error = await apiRefuses(name, 'restore', { target: { kind: 'files', path: target } })
        nothingOutside()
        expect(existsSync(target), 'the target folder was created').to.equal(false)
        saysWhy(error, entry)
      })
      planned(`crafted/${name}/cli`, lane('cli'), async () => {
        const target = join(dir, 'cli', name)
        const out = await cliRefuses(['restore', `c-${name}`, snapshots.get(name)!, '--to', target])
        nothingOutside()
        expect(existsSync(target), 'the target folder was created').to.equal(false)
        saysWhy(out, entry)
      })
      planned(`crafted/${name}/drill`, lane('api'), async () => {
        const error = await apiRefuses(name, 'drill')
        nothingOutside()
        saysWhy(error, entry)
      })
    })
  }

  describe('manifest-dotdot', function () {
    planned('crafted/manifest-dotdot/download', 'manifest-dotdot', async () => {
      const { body } = await download('c-manifest-dotdot', snapshots.get('manifest-dotdot')!)
      expect(body.includes(secret), 'the download served the planted file from outside the job folder').to.equal(false)
    })
    planned('crafted/manifest-dotdot/api', 'manifest-dotdot', async () => {
      const target = join(root, 'manifest-api')
      await apiRefuses('manifest-dotdot', 'restore', { target: { kind: 'files', path: target } })
      expect(existsSync(join(target, 'files', 'stolen.txt')), 'a file read through the manifest was restored').to.equal(false)
    })
  })

  describe('archive-flipped-byte', function () {
    // Issue 37: "A download of a damaged snapshot is refused with a Problem, or carries the recorded digest
    // and ends in an error when the stream does not match"; after a verify, the listing says damaged.
    planned('crafted/archive-flipped-byte/download', 'archive-flipped-byte', async () => {
      const got = await download('c-archive-flipped-byte', snapshots.get('archive-flipped-byte')!)
      if (got.status === 409) return
      expect(got.status).to.equal(200)
      expect(got.headers['repr-digest'], 'the recorded digest').to.match(/^sha-256=:/)
      if (got.whole) throw new Error(`the download of a damaged archive completed: status 200, all ${got.body.length} bytes, no error`)
    })
    planned('crafted/archive-flipped-byte/verified', 'archive-flipped-byte', async () => {
      const error = await apiRefuses('archive-flipped-byte', 'verify')
      expect(error).to.match(/sha256/)
      const { backups } = (await (await api.get('/jobs/c-archive-flipped-byte/backups')).json()) as { backups: { name: string; damaged: boolean }[] }
      expect(backups.find((backup) => backup.name === snapshots.get('archive-flipped-byte'))?.damaged, 'listed as damaged after the verify').to.equal(true)
      const got = await download('c-archive-flipped-byte', snapshots.get('archive-flipped-byte')!)
      expect(got.status, 'the download of a snapshot a verify found damaged').to.equal(409)
    })
  })

  describe('record-dotdot', function () {
    planned('crafted/record-dotdot/drill', 'record-dotdot', async () => {
      const error = await apiRefuses('record-dotdot', 'drill')
      expect(error).to.include('..')
    })
  })

  describe('restic-record-differs', function () {
    const namesTheFile = (message: string) => {
      expect(message).to.include('db/notes.txt')
      expect(message).to.match(/crc32|differ/i)
    }
    planned('crafted/restic-record-differs/drill', 'restic', async () => namesTheFile(await apiRefuses('restic-record-differs', 'drill')))
    planned('crafted/restic-record-differs/drill-cli', 'restic', async () => namesTheFile(await cliRefuses(['drill', 'c-restic-record-differs'])))
  })

  describe('restic-damaged-pack', function () {
    planned('crafted/restic-damaged-pack/drill', 'restic-damaged', async () => {
      const error = await apiRefuses('restic-damaged-pack', 'drill')
      expect(error).to.match(/storage "restic": c-restic-damaged-pack-\S+: damaged/)
      expect(error).to.include(`data/${damagedPack.split('/').at(-2)!}/${damagedPack.split('/').at(-1)!}`)
    })
  })

  for (const name of ['video-archived-dotdot', 'video-caption-dotdot', 'video-through-link']) {
    describe(name, function () {
      const libraryHoldsSecret = async () => {
        const client = libraryClient(emulator)
        const { items } = await client.call<{ items: { guid: string; captions?: { srclang: string }[] }[] }>('GET', 'videos?page=1&itemsPerPage=100')
        for (const video of items) {
          for (const path of [`${video.guid}/original`, ...(video.captions ?? []).map((c) => `${video.guid}/captions/${c.srclang}.vtt`)]) {
            const bytes = await client.cdn(path).catch(() => Buffer.alloc(0))
            if (bytes.includes(secret)) return path
          }
        }
        return undefined
      }
      planned(`crafted/${name}/api`, 'library', async () => {
        const outcome = await api
          .post(`/jobs/c-${name}/backups/${encodeURIComponent(snapshots.get(name)!)}/restore`, {
            target: { kind: 'files', path: join(root, `${name}-api`), intoLibrary: true },
          })
          .then(() => api.waitTask(`c-${name}`, ended))
        const leaked = await libraryHoldsSecret()
        if (leaked) throw new Error(`the library now holds the host's secret at ${leaked} (the task ${outcome.status})`)
        expect(outcome.status).to.equal('failed')
      })
      planned(`crafted/${name}/cli`, 'library', async () => {
        const result = await runCli(['restore', `c-${name}`, snapshots.get(name)!, '--to', join(dir, 'cli', name), '--into-library', '--config', configFile])
        const leaked = await libraryHoldsSecret()
        if (leaked) throw new Error(`the library now holds the host's secret at ${leaked} (exit ${result.code})`)
        expect(result.code, result.out).to.equal(1)
      })
    })
  }

  for (const name of ['sql-set-prepare-execute', 'sql-execute-immediate', 'sql-prepare-literal']) {
    describe(name, function () {
      const victimSurvives = async (what: string) => {
        const rows = await maria.sql("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'other' AND table_name = 'victim'")
        if (rows !== '1') throw new Error(`other.victim was dropped by ${what}`)
      }
      planned(`crafted/${name}/api`, 'maria', async () => {
        await freshTargets()
        try {
          await apiRefuses(name, 'restore', { target: { kind: 'database', source: 'maria', database: 'target', overwrite: true } })
        } finally {
          await victimSurvives('the API restore into restore_tgt').finally(restoreVictim)
        }
      })
      planned(`crafted/${name}/cli`, 'maria', async () => {
        await freshTargets()
        try {
          await cliRefuses(['restore', `c-${name}`, snapshots.get(name)!, '--into-database', '--force'])
        } finally {
          await victimSurvives('the CLI restore into shop').finally(restoreVictim)
        }
      })
    })
  }

  /** Each dump goes into empty databases: a table left by the case before would stop it before its dynamic SQL. */
  async function freshTargets() {
    await maria.sql('DROP DATABASE IF EXISTS restore_tgt; DROP DATABASE IF EXISTS shop; CREATE DATABASE shop')
  }

  /** Puts `other.victim` back for the next case (a case that dropped it has failed already). */
  async function restoreVictim() {
    await maria.sql("CREATE TABLE IF NOT EXISTS victim (id INT PRIMARY KEY, v VARCHAR(20)); INSERT IGNORE INTO victim VALUES (1, 'must survive')", 'other')
  }
})

const hex = (value: number) => value.toString(16).padStart(8, '0')
