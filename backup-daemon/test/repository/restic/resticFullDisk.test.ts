/**
 * @module test/repository/restic/resticFullDisk
 * Issue 39 #5: a restic repository on a full file system. In a mount namespace of its own (`unshare
 * --mount`, root), the repository lives on a 24 MiB tmpfs; a real `backup-daemon run` of a 40 MiB folder
 * fails for want of space, and then the repository holds no more than before the run (restic's own files:
 * under 1 MiB), no snapshot and no lock; the failure is logged with the clean-up; the next run, of a folder
 * that fits, succeeds. A clean-up that fails itself (a repository out of reach) names what to run.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { cleanUpFailedWrite } from '../../../src/repository/restic/cleanUpFailedWrite.js'
import { resticRepository } from '../../../src/repository/restic/resticRepository.js'
import { tempDir } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { daemonBin } from '../../support/runCli.js'
import { requireRestic } from '../../support/requireRestic.js'

describe('restic storage: a run that fills the disk leaves nothing behind (a real tmpfs)', function () {
  this.timeout(180_000)
  let tmp: { dir: string; remove(): Promise<void> }
  before(async () => {
    await requireRestic()
    if (process.getuid?.() !== 0) throw new Error('needs root: the repository is on a tmpfs mounted in a mount namespace (unshare --mount)')
    tmp = await tempDir('bd-restic-full-')
  })
  after(() => tmp?.remove())

  it('the failed run removes the packs it wrote; the next run fits and succeeds', async () => {
    await mkdir(join(tmp.dir, 'src'))
    await writeFile(join(tmp.dir, 'src', 'big.bin'), randomBytes(40 << 20))
    const file = await writeDaemonYaml(
      tmp.dir,
      `  - name: full
    sources: [{ type: local, name: files, path: ./src }]
    storages: [{ type: restic, name: small, repository: ./disk/repo, password: env:RESTIC_TEST_PASSWORD }]
`,
    )
    const node = `"${process.execPath}" "${daemonBin}"`
    const restic = 'RESTIC_REPOSITORY=./disk/repo RESTIC_CACHE_DIR=./root-cache restic --no-lock -q'
    // Everything that needs the tmpfs runs inside the namespace: it goes away with it.
    const script = `set -u
mount -t tmpfs -o size=24m tmpfs ./disk || exit 90
${node} run full --config "${file}"; echo "first run: $?"
echo "size after: $(du -sk ./disk/repo | cut -f1) KiB"
echo "snapshots: $(${restic} snapshots --json)"
echo "locks: [$(${restic} list locks)]"
rm ./src/big.bin && head -c 2097152 /dev/urandom > ./src/small.bin
${node} run full --config "${file}"; echo "second run: $?"
echo "snapshots after: $(${restic} snapshots --json | grep -o '"short_id"' | wc -l)"`
    await mkdir(join(tmp.dir, 'disk'))
    const child = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], {
      cwd: tmp.dir,
      env: { ...process.env, FORCE_COLOR: '', RESTIC_TEST_PASSWORD: 'full disk test', RESTIC_PASSWORD: 'full disk test' },
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
    const code = await new Promise((resolve) => child.once('close', resolve))
    expect(code, `unshare --mount and a tmpfs (root in a namespace-capable system):\n${out}`).to.equal(0)
    if (process.env.E2E_VERBOSE) console.log(out)

    expect(out).to.match(/first run: [1-9]/)
    expect(out).to.match(/no space left on device/i)
    const size = Number(/size after: (\d+) KiB/.exec(out)?.[1])
    expect(size, `what the repository keeps after the failed run:\n${out}`).to.be.below(1024)
    expect(out).to.match(/restic "small": pruned the data the failed run wrote \(\d[\d.]* \w+\)/)
    expect(out).to.match(/snapshots: (\[\]|null)\n/)
    expect(out).to.include('locks: []')
    expect(out, out).to.include('second run: 0')
    // The second run's folder snapshot, which holds its commit.
    expect(out).to.include('snapshots after: 1')
  })
  it('when the clean-up fails too, the error says what is left and the command that removes it (no password in it)', async () => {
    const target = { repository: `rest:http://backup:s3cret@127.0.0.1:9/gone`, password: 'full disk test' }
    const repository = resticRepository('offsite', 'full', target, async () => ({ job: 'full', daemon: 'test' }))
    const logged: string[] = []
    const run = { signal: new AbortController().signal, log: (_level: string, line: string) => logged.push(line) }
    const err = await cleanUpFailedWrite(repository, run, new Error('restic backup exited with 1: no space left on device')).catch((e: Error) => e)
    expect(err.message).to.match(
      /^restic backup exited with 1: no space left on device; what the run wrote may still be in restic "offsite" \(removing it failed: .+\); once the cause is fixed \(e\.g\. space freed\), run `restic -r rest:http:\/\/127\.0\.0\.1:9\/gone prune`$/,
    )
    expect(err.message).to.not.include('s3cret')
    expect(logged).to.deep.equal(['restic "offsite": the write failed; removing what it had written'])
  })
})
