/**
 * Both plugins as a user gets them: the READMEs' "Install" commands run as written (`npm pack -w <plugin>`
 * in this repository, `npm install <tarball>` in the app) into new Payload 3 apps outside the workspace (the
 * blank template with SQLite, `support/freshAppTemplate.ts`), on the Payload release people get today
 * (the registry's `latest`) and on the one before it. The app on `latest` is configured as the READMEs say,
 * built with `next build` (Next's default bundler, no `transpilePackages`) and served by `next start`
 * against the storage-host emulator; the one on the previous release is installed and its plugins loaded.
 * The first run installs and builds (about 25 minutes on a loaded 2-core machine: 12 for the registry
 * install, 10+ for `next build`; the second app's install reuses npm's cache); later runs reuse both apps
 * and take about 2 minutes (support/freshApp.ts).
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'

import { launchBrowser, saveScreenshot } from './support/browser.js'
import { appEnv, packPlugins, prepareFreshApp, startFreshApp, type FreshApp, type PackedPlugins, type RunningFreshApp } from './support/freshApp.js'
import { payloadVersionsUnderTest, readmeInstall } from './support/freshAppInstall.js'
import { importMapStep, openapiCall, openapiImport, storageCall, storageImport } from './support/freshAppTemplate.js'

const email = 'fresh@example.com'
const password = 'fresh-app-password'
/** Two of the app's own collections, and the storage plugin's endpoints (documented by plugin-openapi without knowing that plugin). */
const pluginRoutes = [
  '/api/media',
  '/api/videos/{id}',
  '/api/storage-host/stream/tus-auth',
  '/api/storage-host/stream/webhook',
  '/api/storage-host/storage/upload',
]
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** Both plugins load in plain Node from the app's folder (no TypeScript loader): the server entry points. */
function importInPlainNode(app: FreshApp) {
  // (`./client` is for the admin bundle: like Payload's own client exports it imports @payloadcms/ui, whose CSS
  // imports only a bundler can load.)
  const script = `const s = await import('${app.storage.name}'); const t = await import('${app.storage.name}/types');
    const o = await import('${app.openapi.name}'); console.log(JSON.stringify([typeof s.hostStoragePlugin, typeof o.openapiPlugin, typeof t]))`
  const env = { ...process.env, NODE_OPTIONS: '' }
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app.dir, encoding: 'utf8', env })
  expect(result.status, result.stderr).to.equal(0)
  expect(JSON.parse(result.stdout.trim().split('\n').pop()!)).to.deep.equal(['function', 'function', 'object'])
}

const installedVersion = (app: FreshApp, name: string) =>
  (JSON.parse(readFileSync(path.join(app.dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version

describe("the plugins' README install commands, in fresh Payload apps", function () {
  let versions: { latest: string; previous: string }
  let plugins: PackedPlugins

  before(function () {
    this.timeout(15 * 60_000)
    versions = payloadVersionsUnderTest()
    // Each README's repository command, as written: `npm pack -w <plugin> --pack-destination /tmp` (builds it).
    plugins = packPlugins()
  })

  describe("both plugins in a fresh app on Payload's latest release, installed with the READMEs' commands", function () {
    // First run: npm install of Payload + Next.js from the registry, then a production build.
    this.timeout(30 * 60_000)
    let app: FreshApp
    let emu: RunningEmulator
    let cms: RunningFreshApp
    let browser: Browser | undefined
    let page: Page | undefined
    /** Chromium starts on first use: the tests that need no browser run (and pass or fail) without it. */
    const adminPage = async (): Promise<Page> => (page ??= await (browser ??= await launchBrowser()).newPage())
    let token: string

    before(async function () {
      app = await prepareFreshApp({ build: true, log: (line) => console.log(`      ${line}`), payloadVersion: versions.latest, plugins })
      emu = await startEmulator({ stream: { encodingStepMs: 50 } })
      cms = await startFreshApp(app, emu)
      emu.setWebhookUrl(`${cms.url}/api/storage-host/stream/webhook`)
      const registered = await fetch(`${cms.url}/api/users/first-register`, {
        body: JSON.stringify({ email, password }),
        headers: { 'Content-Type': 'application/json' },
        method: 'POST',
      })
      expect(registered.status, `${await registered.clone().text()}\n${cms.output().slice(-3000)}`).to.equal(200)
      token = ((await registered.json()) as { token: string }).token
    })

    after(async () => {
      await browser?.close()
      await cms?.close()
      await emu?.close()
    })

    it(`runs on the registry's latest payload`, () => {
      expect(installedVersion(app, 'payload')).to.equal(versions.latest)
    })

    it("is set up exactly as the READMEs' install sections say", () => {
      const storage = readmeInstall('plugin-storage/README.md').section
      for (const snippet of [storageImport, storageCall, importMapStep]) expect(storage, 'plugin-storage/README.md').to.include(snippet)
      const openapi = readmeInstall('plugin-openapi/README.md').section
      for (const snippet of [openapiImport, openapiCall]) expect(openapi, 'plugin-openapi/README.md').to.include(snippet)
      // No bundler settings to add: no `transpilePackages: [...]`, no webpack function.
      for (const section of [storage, openapi]) expect(section).not.to.match(/transpilePackages\s*:|webpack\s*[:(]/)
      // The commands the test ran (before these tests) need no way around npm's peer checks.
      for (const readme of ['plugin-storage/README.md', 'plugin-openapi/README.md']) {
        const { inApp, inRepository } = readmeInstall(readme)
        expect([...inRepository, ...inApp].join('\n'), readme).not.to.match(/--force|--legacy-peer-deps/)
      }
    })

    it('ships built JavaScript with declarations and source maps, and neither sources, tests nor tsx', () => {
      for (const plugin of [app.storage, app.openapi]) {
        expect(plugin.files, plugin.name).to.include.members(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/index.js.map'])
        expect(
          plugin.files.filter((f) => /^(src|test)\/|\.test\.|fixtures?\//.test(f)),
          plugin.name,
        ).to.deep.equal([])
        const installed = JSON.parse(readFileSync(path.join(app.dir, 'node_modules', plugin.name, 'package.json'), 'utf8')) as {
          exports: Record<string, { import: string; types: string }>
          dependencies?: Record<string, string>
        }
        for (const [key, target] of Object.entries(installed.exports)) {
          expect(target.import, `${plugin.name} ${key}`).to.match(/^\.\/dist\/.+\.js$/)
          expect(target.types, `${plugin.name} ${key}`).to.match(/^\.\/dist\/.+\.d\.ts$/)
        }
        expect(Object.keys(installed.dependencies ?? {}), plugin.name).not.to.include.members(['tsx', 'esbuild'])
      }
      expect(app.storage.files).to.include('dist/exports/client.js')
      expect(app.openapi.files).to.include('bin/payload-openapi.mjs')
      const client = readFileSync(path.join(app.dir, 'node_modules', app.storage.name, 'dist', 'client', 'TusUploadField.js'), 'utf8')
      expect(client.startsWith("'use client'"), 'a client component keeps its directive first').to.equal(true)
    })

    it('imports in plain Node (no TypeScript loader)', () => importInPlainNode(app))

    it("runs the payload-openapi command from the installed package, with the settings in the app's .env", () => {
      const out = path.join(mkdtempSync(path.join(tmpdir(), 'fresh-app-openapi-')), 'openapi.json')
      // As a developer keeps them: the plugins' settings in `.env` (as `payload` and `next` read them), not exported.
      const full = appEnv(app.dir, path.join(path.dirname(out), 'unused.db'), emu)
      const fromDotenv = Object.keys(full).filter((name) => /^(STORAGE|STREAM)_|^PAYLOAD_SECRET$|^DATABASE_URI$/.test(name))
      const dotenv = path.join(app.dir, '.env')
      writeFileSync(dotenv, fromDotenv.map((name) => `${name}=${JSON.stringify(full[name])}`).join('\n') + '\n')
      const env = { ...full }
      for (const name of fromDotenv) delete env[name]
      try {
        const result = spawnSync('npx', ['payload-openapi', '--config', 'src/payload.config.ts', '--out', out], { cwd: app.dir, encoding: 'utf8', env })
        expect(result.status, result.stderr).to.equal(0)
        expect(result.stdout, `${result.stdout}${result.stderr}`).to.match(/wrote .*openapi\.json: \d+ operations/)
      } finally {
        rmSync(dotenv, { force: true })
      }
      const spec = JSON.parse(readFileSync(out, 'utf8')) as { paths: Record<string, unknown> }
      for (const route of pluginRoutes) expect(spec.paths, route).to.have.property(route)
    })

    it("builds with Next's default bundler and serves the admin panel", async () => {
      expect(app.buildLog).to.match(/Turbopack/)
      const page = await adminPage()
      await page.goto(`${cms.url}/admin/login`)
      await page.fill('input[name="email"]', email)
      await page.fill('input[name="password"]', password)
      await page.click('button[type="submit"]')
      await page.waitForURL(`${cms.url}/admin`)
      await page.getByText('Collections').first().waitFor()
      await page.getByText('Videos').first().waitFor()
      await saveScreenshot(page, 'fresh-app-admin-dashboard')
    })

    it('documents the plugin endpoints on /api/openapi.json and serves the docs page', async () => {
      const res = await fetch(`${cms.url}/api/openapi.json`)
      expect(res.status).to.equal(200)
      const spec = (await res.json()) as { openapi: string; info: { title: string }; paths: Record<string, unknown> }
      expect(spec.openapi).to.match(/^3\.1/)
      expect(spec.info.title, 'the options from the README').to.equal('My CMS')
      for (const route of pluginRoutes) expect(spec.paths, route).to.have.property(route)
      const docs = await fetch(`${cms.url}/api/docs`)
      expect(docs.status).to.equal(200)
      expect(await docs.text()).to.match(/swagger/i)
    })

    it('answers tus-auth: refused without a user, signed for an editor, the video created on the host', async () => {
      const body = JSON.stringify({ collection: 'videos', filename: 'clip.mp4', filesize: 1_000_000, filetype: 'video/mp4', title: 'A fresh video' })
      const headers = { 'Content-Type': 'application/json' }
      const anonymous = await fetch(`${cms.url}/api/storage-host/stream/tus-auth`, { body, headers, method: 'POST' })
      expect(anonymous.status).to.equal(403)
      const res = await fetch(`${cms.url}/api/storage-host/stream/tus-auth`, { body, headers: { ...headers, Authorization: `JWT ${token}` }, method: 'POST' })
      expect(res.status, await res.clone().text()).to.equal(200)
      const answer = (await res.json()) as { type: string; videoId: string; libraryId: number; authorizationSignature: string }
      expect(answer.type).to.equal('upload')
      expect(answer.libraryId).to.equal(emu.stream.libraryId)
      expect(answer.authorizationSignature).to.match(/^[0-9a-f]{64}$/)
      expect(emu.videos().map((v) => v.guid)).to.include(answer.videoId)
    })

    it('uploads an image from the admin panel straight to the storage host', async () => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'fresh-app-image-')), 'fresh-upload.png')
      const bytes = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#16a34a' } })
        .png()
        .toBuffer()
      writeFileSync(file, bytes)
      const page = await adminPage()
      await page.goto(`${cms.url}/admin/collections/media/create`)
      await page.locator('input[type="file"]').setInputFiles(file)
      await page.fill('input[name="alt"]', 'Uploaded to a fresh app')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.waitForURL(/\/admin\/collections\/media\/\d+/)
      await saveScreenshot(page, 'fresh-app-media-saved')

      const list = (await (await fetch(`${cms.url}/api/media?where[alt][equals]=${encodeURIComponent('Uploaded to a fresh app')}`)).json()) as {
        docs: Array<{ _objectKey?: string; filename: string; url: string }>
      }
      expect(list.docs).to.have.length(1)
      const doc = list.docs[0]!
      // A client upload lives in its own folder, recorded on the document (Payload 3: `_objectKey`).
      expect(doc._objectKey, 'uploaded by the browser through the plugin').to.be.a('string')
      const key = `${doc._objectKey}/${doc.filename}`
      const stored = emu.storedFilePath(key)
      expect(stored, `${key} is on the storage host`).to.be.a('string')
      expect(sha256(readFileSync(stored!))).to.equal(sha256(bytes))
      const served = await fetch(new URL(doc.url, cms.url))
      expect(served.status).to.equal(200)
      expect(sha256(Buffer.from(await served.arrayBuffer()))).to.equal(sha256(bytes))
    })
  })

  describe("both plugins in a fresh app on the Payload release before latest, installed with the READMEs' commands", function () {
    this.timeout(30 * 60_000)
    let app: FreshApp

    before(async () => {
      app = await prepareFreshApp({ build: false, log: (line) => console.log(`      ${line}`), payloadVersion: versions.previous, plugins })
    })

    it('installs beside that payload (no ERESOLVE, no --force) and imports in plain Node', () => {
      expect(installedVersion(app, 'payload')).to.equal(versions.previous)
      expect(installedVersion(app, app.storage.name)).to.be.a('string')
      expect(installedVersion(app, app.openapi.name)).to.be.a('string')
      importInPlainNode(app)
    })
  })
})
