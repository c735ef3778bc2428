/**
 * @module repository/SnapshotView
 * What a listed snapshot looks like to the API, the UI and the CLI (the catalog builds it).
 */

/** The spec's Snapshot, one item of `GET /jobs/{name}/backups`. */
export interface SnapshotView {
  id: string
  name: string
  jobName: string
  path: string
  size: number
  createdAt: string
  storageType: string
  isSplit: boolean
  fullDownloadSupported: boolean
  partsCount: number
  /** False for a snapshot without our manifest (the original service's): nothing to check its bytes against. */
  checksummed: boolean
  /** True when the listing alone shows it cannot be whole (a split set with a part missing or sizes not adding up). */
  damaged: boolean
  /** Why it is damaged; present only when `damaged`. */
  damageReason?: string
  /** The storage (name) of the copy listed and downloaded: `defaultStorage`, else the first holding it. */
  storage: string
  /** Every storage of the job that holds a copy. */
  storages: string[]
}
