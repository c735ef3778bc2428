/**
 * @module archive/opensslStream
 * `openssl enc -<cipher> -salt -pbkdf2` in process, streamed through node:crypto: the output is
 * `Salted__`, an 8-byte random salt, then the ciphertext; key and IV are PBKDF2-HMAC-SHA256 (10000
 * iterations, OpenSSL's default for `-pbkdf2`) of the password and salt, key length + IV length bytes.
 * CBC pads with PKCS#7; CTR does not pad. `openssl enc -d -<cipher> -pbkdf2 -pass env:P` decrypts what
 * `encryptOpenssl` writes, and `decryptOpenssl` reads what that command encrypts. Memory holds a chunk.
 *
 * A wrong password shows with CBC as a bad last block (checked when the stream ends); CTR has no
 * integrity at all, so a wrong password yields garbage that only the archive parser can reject: callers
 * read the decrypted bytes as an archive before trusting them (see `repository/archives/openArchive.ts`).
 */
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes } from 'node:crypto'
import { Transform, type TransformCallback } from 'node:stream'
import type { OpensslCipher } from '../config/opensslCiphers.js'

const magic = Buffer.from('Salted__')
const iterations = 10_000

export const wrongPasswordMessage = 'wrong password or not an openssl-encrypted file'

/** Thrown (through the stream) when the bytes cannot be decrypted with the password. */
export class OpensslDecryptError extends Error {
  override name = 'OpensslDecryptError'
  constructor(detail?: string) {
    super(detail ? `${wrongPasswordMessage} (${detail})` : wrongPasswordMessage)
  }
}

const keyLength = (cipher: OpensslCipher) => Number(/^aes-(\d+)-/.exec(cipher)![1]) / 8

function deriveKey(password: string, salt: Buffer, cipher: OpensslCipher): Promise<{ key: Buffer; iv: Buffer }> {
  const length = keyLength(cipher)
  return new Promise((resolve, reject) =>
    pbkdf2(Buffer.from(password, 'utf8'), salt, iterations, length + 16, 'sha256', (err, bytes) =>
      err ? reject(err) : resolve({ key: bytes.subarray(0, length), iv: bytes.subarray(length) }),
    ),
  )
}

/** A Transform from plaintext to `openssl enc -pbkdf2` ciphertext. */
export function encryptOpenssl(password: string, cipher: OpensslCipher): Transform {
  const salt = randomBytes(8)
  const ready = deriveKey(password, salt, cipher).then(({ key, iv }) => createCipheriv(cipher, key, iv))
  let started = false
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      ready.then((c) => {
        if (!started) {
          started = true
          this.push(Buffer.concat([magic, salt]))
        }
        callback(null, c.update(chunk))
      }, callback)
    },
    flush(callback) {
      ready.then((c) => {
        if (!started) this.push(Buffer.concat([magic, salt]))
        callback(null, c.final())
      }, callback)
    },
  })
}

/** A Transform from `openssl enc -pbkdf2` ciphertext to plaintext; errors with `OpensslDecryptError`. */
export function decryptOpenssl(password: string, cipher: OpensslCipher): Transform {
  let header: Buffer = Buffer.alloc(0)
  let decipher: ReturnType<typeof createDecipheriv> | undefined
  const start = async (salt: Buffer) => {
    const { key, iv } = await deriveKey(password, salt, cipher)
    decipher = createDecipheriv(cipher, key, iv)
  }
  const feed = (stream: Transform, data: Buffer, callback: TransformCallback) => {
    if (decipher) return callback(null, decipher.update(data))
    header = Buffer.concat([header, data])
    if (header.length < 16) return callback()
    if (!header.subarray(0, 8).equals(magic)) return callback(new OpensslDecryptError('no "Salted__" header'))
    const rest = header.subarray(16)
    start(header.subarray(8, 16)).then(() => callback(null, decipher!.update(rest)), callback)
  }
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      feed(this, chunk, callback)
    },
    flush(callback) {
      if (!decipher) return callback(new OpensslDecryptError('too short'))
      try {
        callback(null, decipher.final())
      } catch {
        // CBC: the last block's padding is wrong, which is what a wrong password gives.
        callback(new OpensslDecryptError())
      }
    },
  })
}
