/**
 * The kind-specific dependencies load only with the jobs, commands and requests that use them (start-up
 * time, README "Start-up time"): the real CLI runs with a preload (`test/support/recordModules.mjs`) that
 * writes down every module it resolves, through the esbuild bundle the launcher uses, whose dynamic
 * imports must stay separate chunks.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { makeTree, tempDir, waitFor, writeConfig } from '../engine/helpers.js'
import { daemonBin, runCli } from '../support/runCli.js'

const preload = new URL('../support/recordModules.mjs', import.meta.url).href

/** Packages a job of a `local` source and a `local` storage (or an idle `serve`) must not load. */
const heavy = [
  'mongodb',
  'bson',
  'mongodb-connection-string-url',
  'fast-xml-parser',
  'yauzl',
  'yazl',
  'tar-stream',
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  '@aws-sdk/s3-request-presigner',
  'nodemailer',
  'ssh2',
  'age-encryption',
  'jose',
]

/** The environment that makes a child record its modules into `file`. */
function recording(file: string): Record<string, string> {
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`.trim(), RECORD_MODULES_TO: file }
}

/** The package names (`zod`, `@aws-sdk/client-s3`) of the modules recorded in `file`. */
async function packagesIn(file: string): Promise<Set<string>> {
  const names = new Set<string>()
  for (const url of (await readFile(file, 'utf8')).split('\n')) {
    const name = [...url.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].at(-1)?.[1]
    if (name && name !== '.cache') names.add(name)
  }
  return names
}

const loadedOf = (packages: Set<string>) => heavy.filter((name) => packages.has(name))

describe('start-up: kind-specific dependencies load lazily (real CLI, modules recorded)', function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
  })
  afterEach(() => tmp.remove())

  it('`run` of a tar job (local source, local storage) loads none of them and succeeds', async () => {
    const config = await writeConfig(tmp.dir, [{ name: 'plain', compression: 'tar' }])
    const modules = join(tmp.dir, 'modules.txt')
    const result = await runCli(['run', 'plain', '--config', config], { cwd: tmp.dir, env: recording(modules) })
    expect(result.code, result.out).to.equal(0)
    expect(result.out).to.match(/run succeeded/)
    expect((await readdir(join(tmp.dir, 'backups'), { recursive: true })).filter((f) => f.endsWith('.tar'))).to.have.length(1)
    const packages = await packagesIn(modules)
    // The recorder sees packages: the config's parser and schemas are loaded.
    expect([...packages]).to.include.members(['yaml', 'zod'])
    expect(loadedOf(packages)).to.deep.equal([])
  })

  it('`check-config` of a config naming every kind validates it without loading any of them', async () => {
    const config = join(tmp.dir, 'all-kinds.yaml')
    await writeFile(
      config,
      `dataDir: ./data
jobs:
  - name: everything
    compression: zip
    encryption: { type: age, passphrase: a-long-test-passphrase }
    sources:
      - { type: local, name: files, path: ./src }
      - { type: mongodb, name: mongo, uri: "mongodb://127.0.0.1:1/app" }
      - { type: s3, name: bucket, bucket: media, endpoint: "http://127.0.0.1:1" }
    storages:
      - { type: s3, name: s3, bucket: backups, endpoint: "http://127.0.0.1:1", accessKeyId: id, secretAccessKey: secret }
      - { type: sftp, name: nas, host: 127.0.0.1, username: backup, password: pw, strictHostKey: false }
      - { type: webdav, name: cloud, url: "http://127.0.0.1:1/dav/", username: backup, password: pw }
    notify:
      - type: email
        smtp: { host: 127.0.0.1, port: 1, secure: false }
        from: backups@example.com
        to: [ops@example.com]
        on: [failure]
`,
    )
    const modules = join(tmp.dir, 'modules.txt')
    const result = await runCli(['check-config', '--config', config], { cwd: tmp.dir, env: recording(modules) })
    expect(result.code, result.out).to.equal(0)
    expect(result.out).to.match(/config OK: 1 job/)
    expect(loadedOf(await packagesIn(modules))).to.deep.equal([])
  })

  it('a zip job loads yazl only to write, yauzl and tar-stream only to restore (positive control of the recorder)', async () => {
    const config = await writeConfig(tmp.dir, [{ name: 'zipped' }])
    await writeFile(config, (await readFile(config, 'utf8')).replace('compression: tar.gz', 'compression: zip'))
    const runModules = join(tmp.dir, 'run-modules.txt')
    const run = await runCli(['run', 'zipped', '--config', config], { cwd: tmp.dir, env: recording(runModules) })
    expect(run.code, run.out).to.equal(0)
    expect(loadedOf(await packagesIn(runModules))).to.deep.equal(['yazl'])

    const snapshot = (await readdir(join(tmp.dir, 'backups'), { recursive: true })).find((f) => f.endsWith('.zip'))
    expect(snapshot, 'the zip snapshot').to.be.a('string')
    const restoreModules = join(tmp.dir, 'restore-modules.txt')
    const target = join(tmp.dir, 'restored')
    const name = snapshot!.split('/').at(-1)!
    const restore = await runCli(['restore', 'zipped', name, '--config', config, '--to', target], { cwd: tmp.dir, env: recording(restoreModules) })
    expect(restore.code, restore.out).to.equal(0)
    expect(await readFile(join(target, 'files/readme.txt'), 'utf8')).to.equal(await readFile(join(tmp.dir, 'src/readme.txt'), 'utf8'))
    expect(loadedOf(await packagesIn(restoreModules))).to.deep.equal(['yauzl', 'tar-stream'])
  })

  it('`hash-password` loads no config code (neither yaml nor zod)', async () => {
    const modules = join(tmp.dir, 'modules.txt')
    const child = spawn(process.execPath, [daemonBin, 'hash-password'], {
      cwd: tmp.dir,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...recording(modules) },
    })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stdin.end('correct horse\n')
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(code).to.equal(0)
    expect(stdout).to.match(/^scrypt\$/)
    const packages = await packagesIn(modules)
    expect([...packages].filter((name) => ['yaml', 'zod', ...heavy].includes(name))).to.deep.equal([])
  })

  it('`serve` with no job running answers without loading any of them (Hono is loaded)', async () => {
    const config = await writeConfig(tmp.dir, [{ name: 'idle' }], 'server: { address: "127.0.0.1:0" }\n')
    const modules = join(tmp.dir, 'modules.txt')
    const child = spawn(process.execPath, [daemonBin, 'serve', '--config', config], {
      cwd: tmp.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '', ...recording(modules) },
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const exited = new Promise((resolve) => child.once('exit', resolve))
    try {
      const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(output)?.[1], 60_000, 'the URL')
      const status = await fetch(new URL('/api/v1/status', url))
      expect(status.status).to.equal(200)
      expect(((await status.json()) as { jobsCount: number }).jobsCount).to.equal(1)
      expect((await fetch(url)).status).to.equal(200)
    } finally {
      child.kill('SIGTERM')
      await exited
    }
    const packages = await packagesIn(modules)
    expect([...packages]).to.include.members(['hono', 'zod'])
    expect(loadedOf(packages)).to.deep.equal([])
  })
})
