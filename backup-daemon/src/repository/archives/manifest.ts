/**
 * @module repository/archives/manifest
 * The manifest kept beside every snapshot: what it is, and the sha256 and size of every part, so a
 * restore (or `sha256sum`) can verify the bytes. Its presence is what makes a snapshot committed.
 */
import type { Compression } from '../../config/types.js'

export interface ManifestPart {
  /** Storage key of the part. */
  key: string
  size: number
  /** Hex sha256 of the part's bytes. */
  sha256: string
}

export interface Manifest {
  version: 1
  job: string
  /** Snapshot name; for a split set, its set ID. */
  name: string
  compression: Compression
  /** `age` or `openssl` when the archive bytes are encrypted (after compression); absent when not. */
  encryption?: 'age' | 'openssl' | null
  /** The `openssl enc` cipher (e.g. `aes-256-cbc`) when `encryption` is `openssl`. */
  cipher?: string
  createdAt: string
  /** Bytes of the whole archive (all parts). */
  size: number
  /** Hex sha256 of the whole archive (the parts joined in order). */
  sha256: string
  /** `split.chunkSize` of the run, or null when the archive is one object. */
  chunkSize: number | null
  parts: ManifestPart[]
}
