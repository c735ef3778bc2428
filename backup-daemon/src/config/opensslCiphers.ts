/**
 * @module config/opensslCiphers
 * The `openssl enc` ciphers the daemon reads and writes in process (the original service's
 * `encryption.cipher`); anything else is a config error that names these.
 */
export const opensslCiphers = ['aes-256-cbc', 'aes-192-cbc', 'aes-128-cbc', 'aes-256-ctr', 'aes-192-ctr', 'aes-128-ctr'] as const

export type OpensslCipher = (typeof opensslCiphers)[number]
