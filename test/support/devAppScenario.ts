/**
 * @module test/support/devAppScenario
 * The whole system as a user runs it, one scenario for every database the dev-app supports
 * (`devAppDatabases.ts`): `npm start` in a child process; the first admin user and the schema in a
 * database that did not exist; content added through the admin panel in headless Chromium (an image, a
 * real video over TUS played back) and through the REST API (an image and a post that uses it); the
 * OpenAPI docs; the daemon's `cms` job run from its UI (the snapshot downloaded) and through its API (the
 * database password in no log, response or config view); the snapshot restored with the daemon's
 * `restore` command into a copy that must hold the same rows and media as the live CMS; Ctrl-C at the end.
 */
import { expect } from 'chai'
import { execFile, execFileSync } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'
import { launchBrowser, saveScreenshot } from './browser.js'
import type { DevAppDatabase } from './devAppDatabases.js'
import { restoreWholeSite } from './devAppSiteRestore.js'
import { runCommand } from './runCommand.js'
import { startDevApp, type RunningDevApp } from './devApp.js'
import { logIn, logInToDaemon, runCmsJobFromUi, uploadVideoInAdmin } from './devAppSteps.js'
import { sha256, walk } from './files.js'
import { freePort } from './freePort.js'
import { waitFor } from './waitFor.js'

const run = promisify(execFile)
const repoRoot = new URL('../..', import.meta.url).pathname
/** The dev-app's seed (dev-app/src/start/seed.ts): one image and one post before the scenario adds its own. */
const seeded = { images: 1, posts: 1 }

export function describeDevAppScenario(database: DevAppDatabase): void {
  describe(`dev-app end to end on ${database.name} (npm start)`, function () {
    this.timeout(database.timeoutMs)
    let app: RunningDevApp | undefined
    let browser: Browser | undefined
    // Ours, so that a start that fails still leaves nothing behind.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dev-app-e2e-'))
    /** Ports the kernel picked free: fixed ones collide with other tests and dev-apps on a shared machine. */
    let ports: { cms: number; daemon: number; emulator: number }
    /** Logged in as the first admin user: each test that needs the admin panel starts from here, not from the login test. */
    let page: Page
    let token: string
    let cookie: string
    const created = { images: 0, posts: 0 }
    const uploaded = { alt: `Uploaded over REST to the ${database.name} CMS`, sha256: '' }
    const cms = () => app ?? expect.fail('the dev-app did not start')
    /** What the dev-app ran with: the database's variables and the ports. */
    let env: Record<string, string> = {}
    let stopped = false

    before(async function () {
      const databaseEnv = await database.start(dataDir)
      browser = await launchBrowser()
      ports = { cms: await freePort(), daemon: await freePort(), emulator: await freePort() }
      app = await startDevApp({ ports, dataDir, readyTimeoutMs: database.readyTimeoutMs, env: databaseEnv })
      const portsEnv = { CMS_PORT: String(ports.cms), DAEMON_PORT: String(ports.daemon), EMULATOR_PORT: String(ports.emulator) }
      env = { ...databaseEnv, ...portsEnv, CMS_URL: `http://localhost:${ports.cms}` }
      page = await browser.newPage()
      await logIn(page, app)
    })

    /** Ctrl-C, once: the dev-app says it stopped and leaves nothing listening. */
    async function stopApp() {
      if (!app || stopped) return
      stopped = true
      await app.stop()
      expect(app.output()).to.contain('[dev-app] stopped')
      // Ctrl-C leaves nothing listening.
      for (const url of [app.cmsUrl, app.daemonUrl, app.emulatorUrl]) {
        const answered = await fetch(url).then(
          () => true,
          () => false,
        )
        expect(answered, `${url} still answers after Ctrl-C`).to.equal(false)
      }
    }

    after(async function () {
      await browser?.close()
      await stopApp()
      rmSync(dataDir, { recursive: true, force: true })
      await database.stop()
    })

    it('prints every URL, the first-login credentials, its database and its start-up time', function () {
      const out = cms().output()
      const { cmsUrl, credentials, emulatorUrl } = cms()
      for (const url of [`${cmsUrl}/admin`, `${cmsUrl}/api`, `${cmsUrl}/api/docs`, `http://localhost:${ports.daemon}/`, emulatorUrl]) {
        expect(out).to.contain(url)
      }
      expect(out).to.contain(`login ${credentials.adminEmail} / ${credentials.adminPassword}`)
      expect(out).to.contain(`login ${credentials.daemonUsername} / ${credentials.daemonPassword}`)
      // The emulator's keys: the data folder's own, printed with the credentials (issue 39 #1).
      expect(out).to.contain(`storage AccessKey ${credentials.storageAccessKey}`)
      expect(out).to.contain(`stream AccessKey ${credentials.streamApiKey}   webhook key ${credentials.webhookSecret}`)
      expect(out).to.contain(`[dev-app] data folder ${dataDir}${database.startLabel}\n`)
      expect(out).to.match(/ready in [\d.]+ s/)
    })

    it('creates the schema and the first admin user in a database that did not exist', async function () {
      await database.checkCreated()
      expect(await database.live('SELECT email FROM users')).to.equal(cms().credentials.adminEmail)
      const response = await fetch(`${cms().cmsUrl}/api/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: cms().credentials.adminEmail, password: cms().credentials.adminPassword }),
      })
      expect(response.status).to.equal(200)
      token = ((await response.json()) as { token: string }).token
      expect(token).to.be.a('string')
    })

    it('logs the first admin user in to the admin panel', async function () {
      // A page of its own, with no session yet (the shared page logged in before the tests).
      const context = await browser!.newContext()
      const fresh = await context.newPage()
      await logIn(fresh, cms())
      await fresh.getByText('Collections').first().waitFor()
      await saveScreenshot(fresh, 'dev-app-admin-dashboard')
      await context.close()
    })

    it('uploads an image through the admin panel and lists it', async function () {
      const { cmsUrl } = cms()
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'e2e-image-')), 'e2e-upload.png')
      const bytes = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#2563eb' } })
        .png()
        .toBuffer()
      writeFileSync(file, bytes)
      await page.goto(`${cmsUrl}/admin/collections/images/create`)
      await page.locator('input[type="file"]').setInputFiles(file)
      await page.fill('input[name="alt"]', 'Uploaded by the e2e test')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.waitForURL(/\/admin\/collections\/images\/\d+/)
      created.images++
      await page.goto(`${cmsUrl}/admin/collections/images`)
      await page.getByText('Uploaded by the e2e test').waitFor()
      await saveScreenshot(page, 'dev-app-images-list')

      const list = (await (await fetch(`${cmsUrl}/api/images?where[alt][equals]=Uploaded%20by%20the%20e2e%20test`)).json()) as {
        docs: { url: string; filename: string }[]
      }
      expect(list.docs).to.have.length(1)
      const served = Buffer.from(await (await fetch(new URL(list.docs[0]!.url, cmsUrl))).arrayBuffer())
      expect(sha256(served)).to.equal(sha256(bytes))
    })

    it('stores an image uploaded through the REST API and a post that uses it', async function () {
      const { cmsUrl } = cms()
      const bytes = await sharp({ create: { width: 640, height: 400, channels: 3, background: '#16a34a' } })
        .png()
        .toBuffer()
      uploaded.sha256 = sha256(bytes)
      const form = new FormData()
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'rest-e2e.png')
      form.append('_payload', JSON.stringify({ alt: uploaded.alt }))
      const imageResponse = await fetch(`${cmsUrl}/api/images`, { method: 'POST', headers: { authorization: `JWT ${token}` }, body: form })
      const image = (await imageResponse.json()) as { doc: { id: number; url: string } }
      expect(imageResponse.status, JSON.stringify(image)).to.equal(201)
      created.images++
      const served = Buffer.from(await (await fetch(new URL(image.doc.url, cmsUrl))).arrayBuffer())
      expect(sha256(served)).to.equal(uploaded.sha256)

      const post = await fetch(`${cmsUrl}/api/posts`, {
        method: 'POST',
        headers: { authorization: `JWT ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `A post stored in ${database.name}`,
          slug: 'rest-e2e',
          heroImage: image.doc.id,
          _status: 'published',
          gallery: [{ image: image.doc.id, caption: 'café ✓' }],
        }),
      })
      expect(post.status, await post.clone().text()).to.equal(201)
      created.posts++
      // The rows are in the database, in the tables Payload's push created.
      expect(await database.live(`SELECT hero_image_id FROM posts WHERE slug = 'rest-e2e'`)).to.equal(String(image.doc.id))
      expect(await database.live(`SELECT caption FROM posts_gallery`)).to.equal('café ✓')
    })

    it('uploads a real video through the admin panel via TUS; the webhook fills its resolutions; the panel plays it', async function () {
      await uploadVideoInAdmin(page, cms())
    })

    it("passes the storage plugin's setup check, npm run check-host as the README writes it (zone, CDN, library, webhook)", async function () {
      const out = await runCommand('npm', ['run', 'check-host', '-w', 'dev-app'], { ...env, DEV_APP_DATA_DIR: dataDir })
      expect(out).to.match(/^ok {4}storage zone "[^"]+" \(images\): listed and written/m)
      expect(out).to.match(/^ok {4}storage zone .*: its CDN .* serves the zone’s files/m)
      expect(out).to.match(/^ok {4}video library \d+ \(videos\): listed through/m)
      expect(out).to.match(new RegExp(`^ok {4}video library .*: the webhook http://localhost:${ports.cms}/api/storage-host/stream/webhook answers`, 'm'))
      expect(out).to.include('everything the plugin needs answers')
      expect(out).not.to.include(cms().credentials.storageAccessKey)
    })

    it('documents the REST API, the storage plugin endpoints included, on /api/docs', async function () {
      const { cmsUrl } = cms()
      const spec = (await (await fetch(`${cmsUrl}/api/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> }
      expect(spec.openapi).to.match(/^3\.1/)
      for (const route of [
        '/api/posts',
        '/api/images/{id}',
        '/api/globals/site-settings',
        '/api/storage-host/stream/tus-auth',
        '/api/storage-host/stream/webhook',
      ]) {
        expect(spec.paths, route).to.have.property(route)
      }
      await page.goto(`${cmsUrl}/api/docs`)
      await page.getByText('/api/storage-host/stream/tus-auth').first().waitFor()
      await page.getByText('/api/posts/{id}').first().waitFor()
      await saveScreenshot(page, 'dev-app-api-docs')
    })

    it('runs the backup job from the daemon UI and downloads the snapshot: every media file is in it, byte for byte', async function () {
      const archive = await runCmsJobFromUi(browser!, cms())
      const restored = mkdtempSync(path.join(tmpdir(), 'e2e-download-'))
      try {
        writeFileSync(path.join(restored, 'snapshot.tar.gz'), archive)
        execFileSync('tar', ['-xzf', 'snapshot.tar.gz'], { cwd: restored })
        // Media: every file of the emulated storage zone is in the snapshot, byte for byte (the zone's own
        // `private-backups/` folder, as the dev-app README says, holds the daemon's backups, which the job
        // leaves out).
        const mediaRoot = path.join(dataDir, 'host', 'storage', 'dev-zone')
        const mediaFiles = walk(mediaRoot).filter((f) => !path.relative(mediaRoot, f).startsWith(`private-backups${path.sep}`))
        expect(mediaFiles.length).to.be.greaterThan(0)
        for (const file of mediaFiles) {
          const copy = path.join(restored, 'media', path.relative(mediaRoot, file))
          expect(existsSync(copy), `missing in snapshot: ${copy}`).to.equal(true)
          expect(sha256(readFileSync(copy))).to.equal(sha256(readFileSync(file)))
        }
      } finally {
        rmSync(restored, { recursive: true, force: true })
      }
    })

    it(`backs the database up with the daemon's cms job through its API (the password in no log, response or config view)`, async function () {
      const api = `${cms().daemonUrl}/api/v1`
      cookie = await logInToDaemon(cms())
      const get = async (route: string) => (await fetch(`${api}${route}`, { headers: { cookie } })).text()
      const config = await get('/jobs/cms/config')
      expect(config).to.contain(database.name === 'PostgreSQL' ? 'postgresql' : 'sqlite')
      type Status = { status: string; lastRun?: string; lastResult?: { success: boolean; error?: string } }
      // The UI's run before this one left a result: this run's is the one with another start time.
      const before = (JSON.parse(await get('/jobs/cms/status')) as Status).lastRun
      const started = await fetch(`${api}/jobs/cms/run`, { method: 'POST', headers: { cookie } })
      expect(started.status).to.equal(202)
      let status: Status | undefined
      await waitFor(async () => {
        status = JSON.parse(await get('/jobs/cms/status')) as Status
        return status.status === 'idle' && status.lastRun !== before && status.lastResult !== undefined && status.lastResult !== null
      }, 180_000)
      const logs = (JSON.parse(await get('/jobs/cms/logs?tail=2000')) as { logs: string[] }).logs.join('\n')
      expect(status!.lastResult!.success, logs).to.equal(true)
      expect(logs).to.match(database.dumpLine)

      for (const [where, text] of [
        ['job config', config],
        ['job log', logs],
        ['npm start output', cms().output()],
      ] as const) {
        for (const secret of database.secrets) expect(text, where).not.to.contain(secret)
      }
      const perJobLogs = walk(path.join(dataDir, 'daemon')).filter((f) => f.endsWith('.log'))
      expect(perJobLogs, 'the job wrote log files to search').to.not.be.empty
      for (const file of perJobLogs) for (const secret of database.secrets) expect(readFileSync(file, 'utf8'), file).not.to.contain(secret)
    })

    it('refuses a local user (nobody, curl) the old fixed keys for the backups and a webhook signed with them; the README’s curl with the generated key lists them', async function () {
      const { emulatorUrl, cmsUrl, credentials } = cms()
      const asNobody = async (args: string[]) =>
        Number(
          (await run('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', ...args]))
            .stdout,
        )
      const folder = `${emulatorUrl}/storage/dev-zone/private-backups/cms/`
      const listed = JSON.parse((await run('curl', ['-s', '-H', `AccessKey: ${credentials.storageAccessKey}`, folder])).stdout) as { ObjectName: string }[]
      const snapshot = listed.map((entry) => entry.ObjectName).find((name) => name.endsWith('.tar.gz'))
      expect(snapshot, 'a snapshot in the daemon’s folder').to.be.a('string')
      const fixed = ['-H', 'AccessKey: dev-storage-key']
      expect(await asNobody([...fixed, `${folder}${snapshot}`]), 'download').to.equal(401)
      expect(await asNobody(['-X', 'PUT', ...fixed, '--data-binary', 'forged', `${folder}cms-2099-01-01T00-00-00-000Z.tar.gz`]), 'PUT').to.equal(401)
      expect(await asNobody(['-X', 'DELETE', ...fixed, `${folder}${snapshot}`]), 'DELETE').to.equal(401)
      // A webhook body signed with the old fixed read-only key: refused by the CMS.
      const body = JSON.stringify({ VideoLibraryId: 1001, VideoGuid: '00000000-0000-0000-0000-000000000000', Status: 3 })
      const signature = createHmac('sha256', 'dev-stream-readonly-key').update(body).digest('hex')
      const webhook = [`${cmsUrl}/api/storage-host/stream/webhook`, '-H', 'content-type: application/json', '--data-binary', body]
      const signed = ['-H', 'X-HostStream-Signature-Algorithm: hmac-sha256', '-H', 'X-HostStream-Signature-Version: v1']
      expect(await asNobody([...webhook, ...signed, '-H', `X-HostStream-Signature: ${signature}`]), 'forged webhook').to.equal(401)
      // The dev-app README's snippet, as written but for the data folder and the port of this run.
      const readme = readFileSync(path.join(repoRoot, 'dev-app', 'README.md'), 'utf8')
      const snippet = /(KEY=\$\(node -p "require\('\.\/dev-app\/\.data\/credentials\.json'\)\.storageAccessKey"\)\ncurl [^\n]+)/.exec(readme)?.[1]
      expect(snippet, 'the README’s curl snippet').to.be.a('string')
      const script = snippet!.replace('./dev-app/.data', dataDir).replace('http://127.0.0.1:3100', emulatorUrl)
      const answer = JSON.parse((await run('sh', ['-c', script], { cwd: repoRoot })).stdout) as { ObjectName: string }[]
      expect(answer.map((entry) => entry.ObjectName)).to.include(snapshot)
    })

    it("proves the snapshot with the daemon's restore drill: the CMS check reads the restored database and finds every document's media", async function () {
      const daemonCli = path.join(repoRoot, 'backup-daemon', 'bin', 'backup-daemon.js')
      const daemonConfig = path.join(dataDir, 'daemon', 'backup-daemon.yaml')
      const drill = await run(process.execPath, [daemonCli, 'drill', 'cms', '--storage', 'disk', '--config', daemonConfig], { cwd: repoRoot }).catch(
        (error: { stdout: string; stderr: string }) => {
          throw new Error(`backup-daemon drill cms failed:\n${error.stdout}${error.stderr}`)
        },
      )
      const output = drill.stdout + drill.stderr
      // Payload's own tables (SQLite file or PostgreSQL dump restored into a scratch database): images' files found.
      expect(output).to.match(/CMS check: [1-9]\d* upload file\(s\) and \d+ video\(s\) of \d+ collection\(s\) are in the snapshot/)
      for (const secret of database.secrets) expect(output).not.to.contain(secret)
    })

    it('restores the snapshot (the daemon’s restore command) into a copy with the same rows and media as the live CMS', async function () {
      const { cmsUrl, daemonUrl } = cms()
      const listing = await fetch(`${daemonUrl}/api/v1/jobs/cms/backups`, { headers: { cookie } })
      const { backups } = (await listing.json()) as { backups: { name: string }[] }
      expect(backups.length).to.be.greaterThan(0)
      const snapshot = backups[0]!.name
      const restored = mkdtempSync(path.join(tmpdir(), 'e2e-restore-'))
      try {
        // The daemon's own restore: verifies the snapshot, then unpacks it.
        const target = path.join(restored, 'files')
        const daemonCli = path.join(repoRoot, 'backup-daemon', 'bin', 'backup-daemon.js')
        const daemonConfig = path.join(dataDir, 'daemon', 'backup-daemon.yaml')
        await run(process.execPath, [daemonCli, 'restore', 'cms', snapshot, '--config', daemonConfig, '--to', target], { cwd: repoRoot })
        // The media beside it: the uploaded image's bytes are in the snapshot.
        expect(walk(path.join(target, 'media')).some((f) => sha256(readFileSync(f)) === uploaded.sha256)).to.equal(true)

        const copy = await database.restore(target)
        const tables = (await database.live(database.tablesSql)).split('\n')
        expect(tables).to.include.members(['images', 'posts', 'posts_gallery', 'users', 'site_settings', 'payload_migrations'])
        expect((await copy(database.tablesSql)).split('\n')).to.deep.equal(tables)
        const counts = async (sql: (statement: string) => Promise<string>) =>
          Promise.all(tables.map(async (t) => `${t}=${await sql(`SELECT count(*) FROM "${t}"`)}`))
        const liveCounts = await counts(database.live)
        expect(await counts(copy)).to.deep.equal(liveCounts)
        expect(liveCounts)
          .to.include(`images=${seeded.images + created.images}`)
          .and.to.include(`posts=${seeded.posts + created.posts}`)
        for (const query of [
          'SELECT id, alt, filename, filesize, width, height FROM images ORDER BY id',
          'SELECT id, title, slug, hero_image_id, _status FROM posts ORDER BY id',
          'SELECT _parent_id, image_id, caption FROM posts_gallery ORDER BY id',
          'SELECT email, hash FROM users ORDER BY id',
          'SELECT site_title, logo_id FROM site_settings',
        ]) {
          expect(await copy(query), query).to.equal(await database.live(query))
        }
        // And the restored rows are what the CMS serves.
        const live = (await (await fetch(`${cmsUrl}/api/posts?sort=id&limit=100`)).json()) as { docs: { title: string }[] }
        expect((await copy('SELECT title FROM posts ORDER BY id')).split('\n')).to.deep.equal(live.docs.map((d) => d.title))
        const liveImages = (await (await fetch(`${cmsUrl}/api/images/count`)).json()) as { totalDocs: number }
        expect(Number(await copy('SELECT count(*) FROM images'))).to.equal(liveImages.totalDocs)
        expect(await copy(`SELECT alt FROM images WHERE alt = '${uploaded.alt}'`)).to.equal(uploaded.alt)
      } finally {
        rmSync(restored, { recursive: true, force: true })
      }
    })

    if (database.siteRestore) {
      it('stops and brings the whole site back with npm run restore-site into a new database (rows, images, the video under a new GUID)', async function () {
        const videos = (await (await fetch(`${cms().cmsUrl}/api/videos?depth=0`)).json()) as {
          docs: { id: number; hostData: { stream: { videoId: string } } }[]
        }
        expect(videos.docs).to.have.length(1)
        const video = { id: videos.docs[0]!.id, guid: videos.docs[0]!.hostData.stream.videoId }
        await stopApp()
        await restoreWholeSite({ database, dataDir, env, video, secrets: database.secrets })
      })
    }
  })
}
