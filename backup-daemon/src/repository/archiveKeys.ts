/**
 * @module repository/archiveKeys
 * A job's keys for reading its own snapshots, from its `encryption` config; shared by the API's tasks and
 * the CLI's `verify` and `restore`.
 */
import type { JobConfig } from '../config/types.js'
import type { SnapshotKeys } from './types.js'

/** The job's keys for reading its encrypted snapshots (age passphrase, openssl password and cipher). */
export function archiveKeys(job: JobConfig): SnapshotKeys {
  const encryption = job.encryption
  if (encryption?.type === 'openssl') return { openssl: { password: encryption.password, cipher: encryption.cipher } }
  if (encryption?.type === 'age' && encryption.passphrase !== undefined) return { keys: { passphrase: encryption.passphrase } }
  return {}
}
