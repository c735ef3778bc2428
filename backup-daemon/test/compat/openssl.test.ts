/**
 * OpenSSL's `enc -pbkdf2` format in process, against the real `openssl` binary both ways for every
 * supported cipher; a wrong password is a clear error (CBC at once from the padding; CTR when the
 * decrypted bytes do not read as the archive) and a restore then writes nothing; a run with
 * `encryption.type: openssl` names the snapshot `.enc`, records the encryption (never the password) in
 * the manifest, and `openssl enc -d` + `tar` open it.
 */
import { expect } from 'chai'
import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { access, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { decryptOpenssl, encryptOpenssl, OpensslDecryptError } from '../../src/archive/opensslStream.js'
import { opensslCiphers, type OpensslCipher } from '../../src/config/opensslCiphers.js'
import { createEngine } from '../../src/engine/createEngine.js'
import type { JobConfig } from '../../src/config/types.js'
import { tempDir } from '../engine/helpers.js'
import { legacyConfig, makeFiles, makeSqlite, restore, snapshotOfFiles } from './support/compatFixture.js'

const exec = promisify(execFile)
const password = 'pässword with spaces & symbols'

/** Runs `openssl enc` with `input` on stdin; resolves with stdout, rejects on a non-zero exit. */
function openssl(args: string[], input: Buffer, pass: string): Promise<Buffer> {
  const child = spawn('openssl', ['enc', ...args, '-pbkdf2', '-pass', 'env:OPENSSL_TEST_PASS'], { env: { ...process.env, OPENSSL_TEST_PASS: pass } })
  const out = buffer(child.stdout)
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  child.stdin.end(input)
  return new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? out.then(resolve, reject) : reject(new Error(`openssl exit ${code}: ${stderr}`)))),
  )
}

const through = async (data: Buffer, transform: NodeJS.ReadWriteStream) => {
  const chunks: Buffer[] = []
  // Small chunks: the header and blocks arrive split at every possible place.
  const pieces = Array.from({ length: Math.ceil(data.length / 7) }, (_, i) => data.subarray(i * 7, i * 7 + 7))
  await pipeline(Readable.from(pieces), transform, async (source: AsyncIterable<string | Buffer>) => {
    for await (const chunk of source) chunks.push(Buffer.from(chunk))
  })
  return Buffer.concat(chunks)
}

describe('compat: openssl enc -pbkdf2 encryption', function () {
  this.timeout(120_000)
  const sizes = [0, 1, 15, 16, 17, 70_001]

  for (const cipher of opensslCiphers) {
    it(`${cipher}: openssl decrypts ours and we decrypt openssl's, any length`, async () => {
      for (const size of sizes) {
        const plain = randomBytes(size)
        const ours = await through(plain, encryptOpenssl(password, cipher))
        expect(ours.subarray(0, 8).toString()).to.equal('Salted__')
        expect(await openssl(['-d', `-${cipher}`], ours, password), `${cipher} ${size}`).to.deep.equal(plain)
        const theirs = await openssl([`-${cipher}`, '-salt'], plain, password)
        expect(await through(theirs, decryptOpenssl(password, cipher)), `${cipher} ${size}`).to.deep.equal(plain)
      }
    })
  }

  it('streams: reading the first bytes pulls a few chunks of a 64 MiB input, both ways', async () => {
    for (const make of [() => encryptOpenssl(password, 'aes-256-ctr'), () => decryptOpenssl(password, 'aes-256-ctr')]) {
      let produced = 0
      const input = Readable.from(
        (function* () {
          for (let i = 0; i < 1024; i++) {
            produced += 65_536
            yield i === 0 ? Buffer.concat([Buffer.from('Salted__12345678'), Buffer.alloc(65_520)]) : Buffer.alloc(65_536)
          }
        })(),
        { objectMode: false, highWaterMark: 65_536 },
      )
      const output = input.pipe(make())
      const iterator = output[Symbol.asyncIterator]()
      for (let i = 0; i < 4; i++) await iterator.next()
      expect(produced).to.be.lessThan(1024 * 1024)
      output.destroy()
      input.destroy()
    }
  })

  it('CBC: a wrong password or a file that is not openssl output is a clear error', async () => {
    const encrypted = await openssl(['-aes-256-cbc', '-salt'], randomBytes(5000), password)
    for (const [input, pass] of [
      [encrypted, 'wrong'],
      [randomBytes(100), password],
      [Buffer.alloc(0), password],
    ] as const) {
      try {
        await through(input, decryptOpenssl(pass, 'aes-256-cbc'))
        expect.fail('decrypted with a wrong password')
      } catch (err) {
        expect(err).to.be.instanceOf(OpensslDecryptError)
        expect((err as Error).message).to.match(/^wrong password or not an openssl-encrypted file/)
      }
    }
  })

  describe('runs and restores', () => {
    let tmp: Awaited<ReturnType<typeof tempDir>>
    beforeEach(async () => {
      tmp = await tempDir('bd-openssl-')
      await makeFiles(join(tmp.dir, 'live'))
      await makeSqlite(join(tmp.dir, 'app.db'), 'ours')
    })
    afterEach(() => tmp.remove())

    const runWith = async (cipher: OpensslCipher, change: (job: JobConfig) => void = () => {}) => {
      const config = await legacyConfig(tmp.dir, (job) => {
        job.encryption = { type: 'openssl', cipher, password }
        job.split = { chunkSize: 50_000 }
        change(job)
      })
      const engine = await createEngine(config, { schedule: false, persistLogs: false })
      try {
        engine.run('legacy', 'manual')
        const info = await engine.whenIdle('legacy')
        expect(info.status, info.error).to.equal('success')
        const [snapshot] = await engine.listSnapshots('legacy')
        const log = engine.logs.tail({ kind: 'job', job: 'legacy' }, 1000).join('\n')
        return { job: config.jobs[0]!, snapshot: snapshot!, log }
      } finally {
        await engine.stop()
      }
    }

    it('a run writes <name>.tar.gz.enc, records the encryption in the manifest, and openssl + tar open it', async () => {
      const { snapshot, log } = await runWith('aes-256-cbc')
      expect(snapshot.name).to.match(/^legacy-.*Z\.tar\.gz\.enc$/)
      expect(snapshot).to.include({ isSplit: true, checksummed: true })
      const folder = join(tmp.dir, 'store', 'legacy')
      const manifestText = await readFile(join(folder, `${snapshot.name}.manifest.json`), 'utf8')
      expect(JSON.parse(manifestText)).to.include({ encryption: 'openssl', cipher: 'aes-256-cbc', compression: 'tar.gz' })
      expect(manifestText + log).not.to.include(password)
      const parts = (await readdir(join(tmp.dir, 'store', snapshot.path))).sort()
      const whole = Buffer.concat(await Promise.all(parts.map((p) => readFile(join(tmp.dir, 'store', snapshot.path, p)))))
      const tarGz = await openssl(['-d', '-aes-256-cbc'], whole, password)
      await writeFile(join(tmp.dir, 'x.tar.gz'), tarGz)
      const { stdout } = await exec('tar', ['-tzf', join(tmp.dir, 'x.tar.gz')])
      expect(stdout.split('\n')).to.include('files/docs/random.bin').and.to.include('db/app.sqlite')
    })

    it("restore decrypts with the job's password; a wrong one is refused with a clear message and writes nothing (CBC and CTR)", async () => {
      for (const cipher of ['aes-256-cbc', 'aes-128-ctr'] as const) {
        const { job, snapshot } = await runWith(cipher, (j) => {
          j.compression = 'tar'
        })
        const to = join(tmp.dir, `restored-${cipher}`)
        const ok = await restore(job, { snapshot: snapshot.name, to })
        expect(ok.code, ok.stdout + ok.stderr).to.equal(0)
        expect(await snapshotOfFiles(join(to, 'files'))).to.deep.equal(await snapshotOfFiles(join(tmp.dir, 'live')))
        const wrongTo = join(tmp.dir, `wrong-${cipher}`)
        const wrong = await restore({ ...job, encryption: { type: 'openssl', cipher, password: 'not the password' } }, { snapshot: snapshot.name, to: wrongTo })
        expect(wrong.code, cipher).to.equal(1)
        expect(wrong.stderr, cipher).to.include('wrong password or not an openssl-encrypted file')
        expect(wrong.stderr).not.to.include('not the password')
        expect(
          await access(wrongTo).then(
            () => true,
            () => false,
          ),
          `${cipher}: nothing written`,
        ).to.equal(false)
      }
    })
  })
})
