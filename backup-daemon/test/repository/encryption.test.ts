/**
 * age encryption: what the daemon writes is decrypted by the standard `age` tool (Debian's `age`, when
 * installed; the `age-encryption` library's decrypter otherwise and for passphrases, which `age -d`
 * only reads from a terminal), the stream is pulled (not read ahead), and the key stays out of the
 * config view, the log and the manifest.
 */
import { expect } from 'chai'
import { execFile, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { Decrypter, Encrypter, generateIdentity, identityToRecipient } from 'age-encryption'
import { decryptAge, encryptAge } from '../../src/archive/ageStream.js'
import { createEngine } from '../../src/engine/createEngine.js'
import { configIn, makeTree, tempDir } from '../engine/helpers.js'

const run = promisify(execFile)
/** A test that runs a tool fails, naming the Debian package, when the tool is not installed. */
function requireTool(command: string, debianPackage: string): void {
  const found = spawnSync('sh', ['-c', `command -v ${command}`]).status === 0
  if (!found) throw new Error(`${command} is not installed: apt-get install -y ${debianPackage}`)
}

const collect = async (stream: Readable) => {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array))
  return Buffer.concat(chunks)
}

describe('encryption: age format', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())
  const plain = randomBytes(1_000_003) // several 64 KiB STREAM chunks and a short last one

  it('recipients: `age -d -i identity` gives back the exact bytes', async () => {
    requireTool('age', 'age')
    const identity = await generateIdentity()
    const recipient = await identityToRecipient(identity)
    const file = join(tmp.dir, 'x.age')
    await pipeline(await encryptAge(Readable.from([plain]), { type: 'age', recipients: [recipient] }), createWriteStream(file))
    const header = (await readFile(file)).subarray(0, 100).toString('latin1')
    expect(header).to.match(/^age-encryption\.org\/v1\n-> X25519 /)
    await writeFile(join(tmp.dir, 'key.txt'), `# test key\n${identity}\n`, { mode: 0o600 })
    const decrypted = (await run('age', ['-d', '-i', join(tmp.dir, 'key.txt'), file], { encoding: 'buffer', maxBuffer: 1 << 24 })).stdout
    expect(decrypted.equals(plain)).to.equal(true)
  })

  it('passphrase: scrypt stanza, decrypted by the reference library; a wrong passphrase fails', async function () {
    // Three scrypt derivations at age's work factor (2^18), one of them in the reference library's plain
    // JavaScript: seconds each on a quiet machine, beyond the default 30 s when the cores are shared.
    this.timeout(120_000)
    const encrypted = await collect(await encryptAge(Readable.from([plain]), { type: 'age', passphrase: 'correct horse battery staple' }))
    expect(encrypted.subarray(0, 40).toString('latin1')).to.match(/^age-encryption\.org\/v1\n-> scrypt /)
    const decrypter = new Decrypter()
    decrypter.addPassphrase('correct horse battery staple')
    expect(Buffer.from(await decrypter.decrypt(new Uint8Array(encrypted))).equals(plain)).to.equal(true)
    expect((await collect(await decryptAge(Readable.from([encrypted]), { passphrase: 'correct horse battery staple' }))).equals(plain)).to.equal(true)
    const wrong = await decryptAge(Readable.from([encrypted]), { passphrase: 'wrong' })
      .then(collect)
      .catch((e: unknown) => e)
    expect(wrong).to.be.instanceOf(Error)
  })

  it("passphrase: the daemon's decrypter (scrypt on node:crypto) opens the reference library's files; a wrong passphrase or a stanza beside the scrypt one is refused", async () => {
    // Two STREAM chunks and a low work factor: the library's scrypt and ciphers run in JavaScript.
    const small = plain.subarray(0, 70_000)
    const encrypter = new Encrypter()
    encrypter.setPassphrase('Café au lait'.normalize('NFD'))
    encrypter.setScryptWorkFactor(12)
    const encrypted = Buffer.from(await encrypter.encrypt(new Uint8Array(small)))
    expect((await collect(await decryptAge(Readable.from([encrypted]), { passphrase: 'Café au lait'.normalize('NFD') }))).equals(small)).to.equal(true)
    const refused = (keys: { passphrase: string }, bytes = encrypted) =>
      decryptAge(Readable.from([bytes]), keys)
        .then(collect)
        .then(
          () => undefined,
          (e: Error) => e.message,
        )
    expect(await refused({ passphrase: 'Cafe au lait' })).to.be.a('string')
    // A second stanza line before the scrypt one's body: the header is no longer a lone scrypt stanza.
    const header = encrypted.toString('latin1')
    const forged = Buffer.from(header.replace('-> scrypt ', '-> X25519 AAAA\nAAAA\n-> scrypt '), 'latin1')
    expect(await refused({ passphrase: 'Café au lait'.normalize('NFD') }, forged)).to.be.a('string')
  })

  it('passphrase: `age -d` itself decrypts it (the passphrase typed on a pseudo-terminal made by `script`)', async () => {
    requireTool('age', 'age')
    requireTool('script', 'bsdutils')
    const file = join(tmp.dir, 'p.age')
    await pipeline(await encryptAge(Readable.from([plain]), { type: 'age', passphrase: 'typed on a tty' }), createWriteStream(file))
    const out = join(tmp.dir, 'p.out')
    // age reads a passphrase only from the terminal: `script` gives it one whose input is our stdin.
    const child = spawn('script', ['-qec', `age -d -o '${out}' '${file}'`, '/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] })
    // Type the passphrase once age asks for it on the terminal (its prompt comes through script's output).
    let shown = ''
    child.stdout.on('data', (chunk: Buffer) => {
      const before = shown
      shown += chunk.toString()
      if (!/passphrase/i.test(before) && /passphrase/i.test(shown)) child.stdin.end('typed on a tty\n')
    })
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(shown, 'age prompted for the passphrase').to.match(/passphrase/i)
    expect(code).to.equal(0)
    expect((await readFile(out)).equals(plain)).to.equal(true)
  })

  it('streams: reading the first encrypted bytes pulls only a few chunks of the input', async () => {
    let produced = 0
    const input = Readable.from(
      (function* () {
        for (let i = 0; i < 1000; i++) {
          produced++
          yield Buffer.alloc(64 * 1024, i)
        }
      })(),
    )
    const recipient = await identityToRecipient(await generateIdentity())
    const encrypted = await encryptAge(input, { type: 'age', recipients: [recipient] })
    for await (const chunk of encrypted) {
      expect((chunk as Uint8Array).length).to.be.greaterThan(0)
      break
    }
    expect(produced, '64 KiB chunks read for the first output').to.be.lessThan(40)
    encrypted.destroy()
  })

  it('a run encrypts after compressing, records it in the manifest, and never shows or logs the passphrase', async () => {
    await makeTree(join(tmp.dir, 'src'))
    const passphrase = 'not-in-any-log-' + randomBytes(8).toString('hex')
    const config = await configIn(tmp.dir, [{ name: 'enc', extra: '    encryption: { type: age, passphrase: env:TEST_AGE_PASSPHRASE }\n' }], '').catch(
      async () => undefined,
    )
    expect(config, 'config without the variable is refused').to.equal(undefined)
    process.env.TEST_AGE_PASSPHRASE = passphrase
    try {
      const engine = await createEngine(
        (await configIn(tmp.dir, [{ name: 'enc', extra: '    encryption: { type: age, passphrase: env:TEST_AGE_PASSPHRASE }\n' }]))!,
        { schedule: false, persistLogs: true },
      )
      engine.run('enc', 'manual')
      const info = await engine.whenIdle('enc')
      expect(info.status, info.error).to.equal('success')
      expect(engine.jobConfig('enc').encryption).to.deep.equal({ type: 'age', hasPassphrase: true })
      expect(JSON.stringify(engine.jobConfig('enc'))).to.not.include(passphrase)
      const names = await readdir(join(tmp.dir, 'backups/enc'))
      const data = names.find((n) => n.endsWith('.tar.gz.age'))!
      const manifest = JSON.parse(await readFile(join(tmp.dir, 'backups/enc', `${data}.manifest.json`), 'utf8')) as Record<string, unknown>
      expect(manifest).to.include({ compression: 'tar.gz', encryption: 'age', name: data })
      const decrypter = new Decrypter()
      decrypter.addPassphrase(passphrase)
      const gz = Buffer.from(await decrypter.decrypt(await readFile(join(tmp.dir, 'backups/enc', data))))
      expect(gz.subarray(0, 2).toString('hex')).to.equal('1f8b') // gzip inside: compressed before encrypting
      await engine.stop()
      const logs = (await readdir(join(tmp.dir, 'data/logs'), { recursive: true })).map(String).filter((l) => l.endsWith('.log'))
      expect(logs, 'the run wrote log files to search').to.not.be.empty
      for (const log of logs) expect(await readFile(join(tmp.dir, 'data/logs', log), 'utf8')).to.not.include(passphrase)
      expect(JSON.stringify(manifest)).to.not.include(passphrase)
    } finally {
      delete process.env.TEST_AGE_PASSPHRASE
    }
  })
})
