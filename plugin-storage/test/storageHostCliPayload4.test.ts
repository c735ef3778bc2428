/**
 * The plugin's commands on Payload 4 (`payload storage-host:check`, `payload storage-host:migrate`), which
 * its CLI takes from `config.cli.commands` as schema-backed commands: run with the project's own `payload`
 * on Node 24, on the same config file as the Payload 3 tests. The site's images are made by a 4.x CMS with
 * the plugin disabled (Payload's local storage), then moved onto the zone.
 */
import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import type { StorageHostPluginOptions } from '../src/types.js'
import { multipart } from './support/api.js'
import type { CliConfigInput } from './support/cliConfig.js'
import { pngBytes } from './support/media.js'
import { PAYLOAD4_VERSION, preparePayload4Project, startPayload4Cms, type Payload4Project } from './support/payload4Project.js'
import { emulatorOptions } from './support/startCms.js'
import { runStorageHostCli } from './support/storageHostCli.js'

describe(`payload storage-host:check and storage-host:migrate on Payload ${PAYLOAD4_VERSION} (Node 24)`, function () {
  this.timeout(600_000)
  let project: Payload4Project | undefined
  let emu: RunningEmulator
  let dataDir: string
  const secret = 'payload4-cli-secret'
  const names: string[] = []

  const payload4 = (args: string[], input: CliConfigInput) =>
    runStorageHostCli(
      {
        argv: [project!.node, join('node_modules', 'payload', 'bin.js'), ...args],
        configPath: join('plugin-storage', 'test', 'support', 'cliConfig.ts'),
        cwd: project!.dir,
        node: project!.node,
      },
      input,
    )
  const hosted = (): StorageHostPluginOptions => ({ ...emulatorOptions(emu), collections: { media: { prefix: 'uploads', target: 'storage' } } })

  before(async function () {
    project = await preparePayload4Project((line) => console.log(`      ${line}`))
    emu = await startEmulator()
    dataDir = await mkdtemp(join(tmpdir(), 'plugin-storage-payload4-cli-'))
    const cms = await startPayload4Cms(project, emu, { dataDir, local: true, scenario: 'default', secret })
    try {
      for (const width of [90, 130]) {
        const res = await cms.fetch('/api/media', { body: multipart(await pngBytes(width, 60), `p4-${width}.png`, 'image/png'), method: 'POST' })
        expect(res.status, await res.clone().text()).to.equal(201)
        const { doc } = (await res.json()) as { doc: { filename: string; sizes: { thumbnail: { filename: string } } } }
        names.push(doc.filename, doc.sizes.thumbnail.filename)
      }
    } finally {
      await cms.close()
    }
  })
  after(async () => {
    await emu?.close()
    if (dataDir) await rm(dataDir, { force: true, recursive: true })
    project?.release()
  })

  it('lists both commands in the CLI help, and check answers for the zone and the library', async () => {
    const help = await payload4(['help'], { dataDir, options: hosted(), secret })
    expect(help.stdout + help.stderr)
      .to.include('storage-host:check')
      .and.include('storage-host:migrate')
    const run = await payload4(['storage-host:check'], { dataDir, options: emulatorOptions(emu), secret })
    expect(run.code, run.stderr + run.stdout).to.equal(1)
    expect(run.stdout).to.match(/^ok {4}storage zone .*\(media\): listed and written/m)
    expect(run.stdout).to.match(/^ok {4}storage zone .*: its CDN .* serves the zone’s files$/m)
    expect(run.stdout).to.match(/^ok {4}video library .*: listed through/m)
    // The test config has no serverURL: the one problem, said as such.
    expect(run.stdout).to.match(/^fail {2}video library .*: serverURL is not set/m)
    expect(run.stdout).to.match(/^1 problem\(s\) found$/m)
  })

  it('migrate refuses a collection not on the host, takes a stream collection, then moves the images and sizes byte-exact with --collection and --dry-run', async () => {
    const refused = await payload4(['storage-host:migrate', '--collection', 'posts'], { dataDir, options: emulatorOptions(emu), secret })
    expect(refused.code).to.equal(1)
    expect(refused.stderr).to.include('collection "posts" is not on the storage host')
    // A stream collection goes into its library (none of its documents here has a file yet).
    const videos = await payload4(['storage-host:migrate', '--collection', 'videos', '--dry-run'], { dataDir, options: emulatorOptions(emu), secret })
    expect(videos.code, videos.stderr + videos.stdout).to.equal(0)
    expect(videos.stdout).to.match(/dry run: moving \d+ video document\(s\) of "videos" from .* to video library \d+/)

    const dry = await payload4(['storage-host:migrate', '--collection', 'media', '--dry-run'], { dataDir, options: hosted(), secret })
    expect(dry.code, dry.stderr + dry.stdout).to.equal(0)
    expect(dry.stdout.match(/would upload uploads\//g)).to.have.length(names.length)

    const run = await payload4(['storage-host:migrate', '--collection', 'media'], { dataDir, options: hosted(), secret })
    expect(run.code, run.stderr + run.stdout).to.equal(0)
    expect(run.stdout).to.include(`2 document(s): ${names.length} file(s) uploaded`).and.include('2 document(s) rewritten, 0 failed')
    for (const name of names) {
      const res = await fetch(`${emu.storage.endpoint}/${emu.storage.zoneName}/uploads/${name}`, { headers: { AccessKey: emu.storage.accessKey } })
      expect(res.status, name).to.equal(200)
      const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
      expect(digest(Buffer.from(await res.arrayBuffer())), name).to.equal(digest(await readFile(join(dataDir, 'media', name))))
    }
  })
})
