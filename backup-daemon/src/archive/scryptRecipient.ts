/**
 * @module archive/scryptRecipient
 * age's scrypt recipient (age-encryption.org/v1, "scrypt recipient stanza") on `node:crypto`: the
 * library's own runs scrypt in JavaScript, holding its 128·r·N bytes in the V8 heap until a collection
 * (the RSS stays up for the whole run); OpenSSL's runs on the thread pool and gives its memory back at
 * once, in less than half the time (work factor 15: 0.5 s against 1.2 s on the loaded build machine; the
 * JavaScript one was about a second of CPU of every restore of a passphrase snapshot, measured). Stanza:
 * `-> scrypt <base64 salt> <log2 N>`, body = ChaCha20-Poly1305 of the file key under
 * scrypt(passphrase, "age-encryption.org/v1/scrypt" || salt, N, r = 8, p = 1), zero nonce. `ScryptIdentity`
 * unwraps it with the library's rules (the only stanza, a 16-byte salt, log2 N at most 20).
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto'
import { Stanza, type Identity, type Recipient } from 'age-encryption'

const label = 'age-encryption.org/v1/scrypt'

const base64NoPad = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '')

/** scrypt(passphrase, label || salt) on the thread pool. */
const deriveKey = (passphrase: string, salt: Buffer, logN: number) =>
  new Promise<Buffer>((resolve, reject) => {
    const N = 2 ** logN
    scrypt(passphrase, Buffer.concat([Buffer.from(label), salt]), 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 }, (err, derived) =>
      err ? reject(err) : resolve(derived),
    )
  })

export class ScryptRecipient implements Recipient {
  constructor(
    private readonly passphrase: string,
    private readonly logN: number,
  ) {}

  async wrapFileKey(fileKey: Uint8Array): Promise<Stanza[]> {
    const salt = randomBytes(16)
    const key = await deriveKey(this.passphrase.normalize('NFC'), salt, this.logN)
    const cipher = createCipheriv('chacha20-poly1305', key, Buffer.alloc(12), { authTagLength: 16 })
    const body = Buffer.concat([cipher.update(fileKey), cipher.final(), cipher.getAuthTag()])
    return [new Stanza(['scrypt', base64NoPad(salt), String(this.logN)], new Uint8Array(body))]
  }
}

export class ScryptIdentity implements Identity {
  constructor(private readonly passphrase: string) {}

  async unwrapFileKey(stanzas: Stanza[]): Promise<Uint8Array | null> {
    for (const stanza of stanzas) {
      if (stanza.args[0] !== 'scrypt') continue
      if (stanzas.length !== 1) throw new Error('scrypt recipient is not the only one in the header')
      const [, salt64 = '', logText = ''] = stanza.args
      const salt = Buffer.from(salt64, 'base64')
      if (stanza.args.length !== 3 || !/^[1-9][0-9]*$/.test(logText) || salt.length !== 16) throw new Error('invalid scrypt stanza')
      const logN = Number(logText)
      if (logN > 20) throw new Error('scrypt work factor is too high')
      if (stanza.body.length !== 32) throw new Error('invalid stanza')
      // As given (as age and the library derive it), and in NFC (as `ScryptRecipient` wrapped it) when that differs.
      for (const passphrase of new Set([this.passphrase, this.passphrase.normalize('NFC')])) {
        const fileKey = openFileKey(stanza.body, await deriveKey(passphrase, salt, logN))
        if (fileKey) return fileKey
      }
    }
    return null
  }
}

/** The file key in a stanza's body, or null when `key` does not open it (another passphrase). */
function openFileKey(body: Uint8Array, key: Buffer): Uint8Array | null {
  const decipher = createDecipheriv('chacha20-poly1305', key, Buffer.alloc(12), { authTagLength: 16 })
  decipher.setAuthTag(body.subarray(16))
  try {
    return new Uint8Array(Buffer.concat([decipher.update(body.subarray(0, 16)), decipher.final()]))
  } catch {
    return null
  }
}
