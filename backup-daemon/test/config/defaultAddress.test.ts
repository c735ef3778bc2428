/**
 * @module test/config/defaultAddress
 * Issue 28 item 14: a config without a `server` key listens on loopback only, and an unauthenticated API
 * beyond loopback is refused unless `server.allowUnauthenticated: true` says so. The real daemon runs in
 * its own network namespace (`unshare --net`, root only), so the default port 8080 is free whatever else
 * runs on the machine, and `ss` inside that namespace shows the address it really bound.
 */
import { expect } from 'chai'
import { spawn, spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigError } from '../../src/config/ConfigError.js'
import { loadConfig } from '../../src/config/loadConfig.js'
import { daemonBin, runCli } from '../support/runCli.js'
import { tempDir } from '../engine/helpers.js'

const jobs = `jobs:
  - name: nightly
    sources: [{ type: local, name: s, path: . }]
    storages: [{ type: local, name: d, path: ./out }]
`

describe('config: default listening address (issue 28 #14)', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())

  const write = async (yaml: string) => {
    const file = join(tmp.dir, 'c.yaml')
    await writeFile(file, yaml)
    return file
  }

  it('defaults to 127.0.0.1:8080 when the file has no server key', async () => {
    const config = await loadConfig(await write(jobs), {})
    expect(config.server.address).to.equal('127.0.0.1:8080')
    expect(config.server.auth.enabled).to.equal(false)
  })

  it('refuses an unauthenticated API beyond loopback, naming the ways out', async () => {
    for (const address of ['0.0.0.0:8080', ':8080', '[::]:8080', '192.168.1.5:8080']) {
      const err = await loadConfig(await write(`server: { address: '${address}' }\n${jobs}`), {}).catch((e: unknown) => e)
      expect(err, address).to.be.instanceOf(ConfigError)
      const issue = (err as ConfigError).issues.find((i) => i.path === 'server.address')
      expect(issue?.message, address).to.include('server.allowUnauthenticated: true').and.include('server.auth')
      expect(issue?.line, address).to.equal(1)
    }
  })

  it('accepts loopback without login, login beyond loopback, and an explicit allowUnauthenticated', async () => {
    for (const server of [
      "{ address: '127.0.0.2:9000' }",
      "{ address: 'localhost:9000' }",
      "{ address: '[::1]:9000' }",
      "{ address: '0.0.0.0:9000', auth: { username: admin, password: 'scrypt$x' } }",
      "{ address: '0.0.0.0:9000', allowUnauthenticated: true }",
    ]) {
      const config = await loadConfig(await write(`server: ${server}\n${jobs}`), {})
      expect(config.server.address, server).to.match(/:9000$/)
    }
  })

  it('check-config exits 1 for 0.0.0.0 without login', async () => {
    const { code, out } = await runCli(['check-config', '--config', await write(`server: { address: '0.0.0.0:8080' }\n${jobs}`)])
    expect(code).to.equal(1)
    expect(out).to.match(/c\.yaml:1:\d+ server\.address: listening on 0\.0\.0\.0:8080 \(beyond loopback\) without login/)
  })

  it('the real daemon started without a server key binds 127.0.0.1:8080 only', async function () {
    if (process.getuid?.() !== 0) throw new Error('needs root for `unshare --net` (its own network namespace, so port 8080 is free)')
    const file = await write(jobs)
    const child = spawn('unshare', ['--net', '--', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" "${daemonBin}" --config "${file}"`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      let out = ''
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "listening on" within 30 s:\n${out}`)), 30_000)
        const onData = (chunk: Buffer) => {
          out += chunk.toString()
          if (out.includes('listening on')) {
            clearTimeout(timer)
            resolve()
          }
        }
        child.stdout.on('data', onData)
        child.stderr.on('data', onData)
        child.once('exit', (code) => reject(new Error(`daemon exited ${code}:\n${out}`)))
      })
      const ss = spawnSync('nsenter', [`--net=/proc/${child.pid}/ns/net`, 'ss', '-ltnH'], { encoding: 'utf8' })
      expect(ss.status, ss.stderr).to.equal(0)
      const listening = ss.stdout
        .trim()
        .split('\n')
        .map((line) => line.trim().split(/\s+/)[3])
      expect(listening).to.deep.equal(['127.0.0.1:8080'])
    } finally {
      child.kill('SIGTERM')
    }
  })
})
