/**
 * @module archive/encryptArchive
 * The one place that picks a snapshot's encryptor from `jobs[].encryption`: age (`.age`) or OpenSSL's
 * `enc -pbkdf2` format (`.enc`, the original service's). Both run in process and stream. Loaded on first
 * use: the age library and its ciphers add ~16 MiB of RSS to a process that loads them.
 */
import type { Readable } from 'node:stream'
import type { EncryptionConfig } from '../config/types.js'

/** The encrypted bytes of `archive` (after compression, before splitting: every part is ciphertext). */
export async function encryptArchive(archive: Readable, config: EncryptionConfig): Promise<Readable> {
  if (config.type === 'openssl') {
    const { encryptOpenssl } = await import('./opensslStream.js')
    const out = encryptOpenssl(config.password, config.cipher)
    archive.on('error', (err) => out.destroy(err))
    return archive.pipe(out)
  }
  return (await import('./ageStream.js')).encryptAge(archive, config)
}
