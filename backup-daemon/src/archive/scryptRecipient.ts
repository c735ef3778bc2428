/**
 * @module archive/scryptRecipient
 * age's scrypt recipient (age-encryption.org/v1, "scrypt recipient stanza") on `node:crypto`: the
 * library's own runs scrypt in JavaScript, holding its 128·r·N bytes in the V8 heap until a collection
 * (the RSS stays up for the whole run); OpenSSL's runs on the thread pool and gives its memory back at
 * once. Stanza: `-> scrypt <base64 salt> <log2 N>`, body = ChaCha20-Poly1305 of the file key under
 * scrypt(passphrase, "age-encryption.org/v1/scrypt" || salt, N, r = 8, p = 1), zero nonce.
 */
import { createCipheriv, randomBytes, scrypt } from 'node:crypto'
import { Stanza, type Recipient } from 'age-encryption'

const label = 'age-encryption.org/v1/scrypt'

const base64NoPad = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '')

export class ScryptRecipient implements Recipient {
  constructor(
    private readonly passphrase: string,
    private readonly logN: number,
  ) {}

  async wrapFileKey(fileKey: Uint8Array): Promise<Stanza[]> {
    const salt = randomBytes(16)
    const N = 2 ** this.logN
    const key = await new Promise<Buffer>((resolve, reject) =>
      scrypt(this.passphrase.normalize('NFC'), Buffer.concat([Buffer.from(label), salt]), 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 }, (err, derived) =>
        err ? reject(err) : resolve(derived),
      ),
    )
    const cipher = createCipheriv('chacha20-poly1305', key, Buffer.alloc(12), { authTagLength: 16 })
    const body = Buffer.concat([cipher.update(fileKey), cipher.final(), cipher.getAuthTag()])
    return [new Stanza(['scrypt', base64NoPad(salt), String(this.logN)], new Uint8Array(body))]
  }
}
