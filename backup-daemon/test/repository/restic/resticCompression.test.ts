/**
 * @module test/repository/restic/resticCompression
 * A restic storage's `compression` (issue 42: media gains nothing from restic's compression and pays for it
 * on a first run): `off` stores a compressible folder as it is, restic's default (`auto`) compresses it, both
 * restore it byte-exact; a mode restic does not know is refused when the config loads, naming the key.
 */
import { expect } from 'chai'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { resticJson } from '../../../src/repository/restic/resticProcess.js'
import { tempDir } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { requireRestic } from '../../support/requireRestic.js'
import { runCli } from '../../support/runCli.js'

describe('restic storage: compression off or restic’s own, per storage', function () {
  this.timeout(180_000)
  let tmp: { dir: string; remove(): Promise<void> }
  const password = 'restic compression passphrase'
  const text = Buffer.from('a line of text that compresses very well, backup after backup\n'.repeat(64 * 1024))

  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-compression-')
    await mkdir(join(tmp.dir, 'src'))
    await writeFile(join(tmp.dir, 'src', 'log.txt'), text)
  })
  after(() => tmp?.remove())

  it('off stores the folder as it is, the default compresses it; both restore byte-exact', async () => {
    const file = await writeDaemonYaml(
      tmp.dir,
      `  - name: site
    sources: [{ type: local, name: files, path: ./src }]
    storages:
      - { type: restic, name: plain, repository: ./plain, password: "${password}", compression: "off" }
      - { type: restic, name: packed, repository: ./packed, password: "${password}" }
`,
    )
    const run = await runCli(['run', 'site', '--config', file], { cwd: tmp.dir })
    expect(run.code, run.out).to.equal(0)
    const stored = async (repo: string) =>
      (await resticJson<{ total_size: number }>({ repository: join(tmp.dir, repo), password }, ['stats', '--mode', 'raw-data'])).total_size
    expect(await stored('plain')).to.be.at.least(text.length)
    expect(await stored('packed')).to.be.below(text.length / 10)
    const name = JSON.parse((await runCli(['snapshots', 'site', '--json', '--config', file], { cwd: tmp.dir })).out.split('\n')[0]!).name as string
    for (const storage of ['plain', 'packed']) {
      const into = join(tmp.dir, `restored-${storage}`)
      const restore = await runCli(['restore', 'site', name, '--storage', storage, '--to', into, '--config', file], { cwd: tmp.dir })
      expect(restore.code, restore.out).to.equal(0)
      expect((await readFile(join(into, 'files', 'log.txt'))).equals(text), storage).to.equal(true)
    }
  })

  it('refuses a mode restic does not know, naming the key', async () => {
    const file = await writeDaemonYaml(
      tmp.dir,
      `  - name: bad
    sources: [{ type: local, name: files, path: ./src }]
    storages: [{ type: restic, name: r, repository: ./r, password: x, compression: zstd }]
`,
    )
    const check = await runCli(['check-config', '--config', file], { cwd: tmp.dir })
    expect(check.code).to.not.equal(0)
    expect(check.out).to.match(/compression/)
  })
})
