/**
 * @module archive/ageStream
 * age (age-encryption.org/v1) encryption of a byte stream with the `age-encryption` library, whose
 * payload is the STREAM construction in 64 KiB ChaCha20-Poly1305 chunks over web streams: memory stays
 * at a chunk or two whatever the size. `age -d` (and any other age implementation) decrypts the result.
 */
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { Decrypter, Encrypter } from 'age-encryption'
import type { AgeEncryptionConfig } from '../config/types.js'
import { ScryptIdentity, ScryptRecipient } from './scryptRecipient.js'

/**
 * scrypt work factor (log2 N) for passphrases. age's CLI uses 18 (256 MiB for the key derivation);
 * 15 (32 MiB, briefly, in OpenSSL) keeps the daemon under its memory target. Use a long random passphrase
 * (or recipients): `age -d` accepts any factor up to 22.
 */
export const scryptWorkFactor = 15

/** Pulls from a Node stream only when the web consumer asks (Readable.toWeb buffers ahead on Node 20). */
function toWeb(input: Readable): ReadableStream<Uint8Array> {
  const iterator = input[Symbol.asyncIterator]()
  const stream = new globalThis.ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await iterator.next()
        if (next.done) controller.close()
        else controller.enqueue(next.value as Buffer)
      },
      cancel(reason) {
        input.destroy(reason instanceof Error ? reason : undefined)
      },
    },
    { highWaterMark: 0 },
  )
  return stream
}

const fromWeb = (stream: ReadableStream<Uint8Array>): Readable => Readable.fromWeb(stream as unknown as WebReadableStream<Uint8Array>)

/** The age-encrypted bytes of `input`. */
export async function encryptAge(input: Readable, config: AgeEncryptionConfig): Promise<Readable> {
  const encrypter = new Encrypter()
  if (config.passphrase !== undefined) {
    encrypter.addRecipient(new ScryptRecipient(config.passphrase, scryptWorkFactor))
  } else {
    for (const recipient of config.recipients ?? []) encrypter.addRecipient(recipient)
  }
  return fromWeb(await encrypter.encrypt(toWeb(input)))
}

export interface AgeKeys {
  passphrase?: string
  /** `AGE-SECRET-KEY-1...` identities (the lines of an age-keygen file; comments are skipped). */
  identities?: string[]
}

/** The plaintext of an age-encrypted stream; fails (while streaming) on a wrong key or altered bytes. */
export async function decryptAge(input: Readable, keys: AgeKeys): Promise<Readable> {
  const decrypter = new Decrypter()
  // The passphrase's scrypt on `node:crypto`, not the library's JavaScript one (`scryptRecipient`).
  if (keys.passphrase !== undefined) decrypter.addIdentity(new ScryptIdentity(keys.passphrase))
  for (const identity of keys.identities ?? []) decrypter.addIdentity(identity)
  return fromWeb(await decrypter.decrypt(toWeb(input)))
}

/** The identities in an age identity file's text. */
export function parseIdentities(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.startsWith('AGE-SECRET-KEY-'))
}
