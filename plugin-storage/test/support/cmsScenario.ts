/**
 * @module test/support/cmsScenario
 * Plugin options of a CMS started in another process (`cmsProcess.ts`, the Payload 4 admin app): the
 * parent passes the emulator's coordinates and a scenario name as JSON, because options with callbacks
 * cannot cross a process boundary.
 */
import type { RunningEmulator } from 'dev-app/emulator'

import type { StorageHostPluginOptions } from '../../src/types.js'
import { emulatorOptions } from './startCms.js'

export interface CmsProcessInput {
  emulator: Pick<RunningEmulator, 'storage' | 'stream'>
  /** `default`, or `narrowed`: `clientUploads.access` and `stream.tus.access` refuse `other@example.com`. */
  scenario: 'default' | 'narrowed'
  fileSizeLimit?: number
  /** Replaces the storage API base URL (a fault-injecting proxy in front of the emulator). */
  storageEndpoint?: string
  /** The plugin disabled: files on Payload's local storage, as a site before the plugin (`storage-host migrate`). */
  local?: boolean
  /** Keep the database and local files in this folder (and the same `secret`): a later process opens them. */
  dataDir?: string
  secret?: string
  /** PostgreSQL in place of SQLite: several processes on one database (`twoInstances.test.ts`). */
  databaseUri?: string
  /** `clientUploads.sweepInterval` in seconds (default: the plugin's hour). */
  sweepInterval?: number
}

export interface CmsProcessReady {
  url: string
  token: string
  otherToken: string
  payloadVersion: string
  nodeVersion: string
  /** Names of the storage adapters the core read from the top-level `storage` key (Payload 4). */
  storageAdapters: string[]
}

const notOther = ({ req }: { req: { user?: unknown } }): boolean => (req.user as { email?: string } | undefined)?.email !== 'other@example.com'

export function scenarioOptions(input: CmsProcessInput): StorageHostPluginOptions {
  const emulated = emulatorOptions(input.emulator as RunningEmulator)
  const base = input.storageEndpoint ? { ...emulated, storage: { ...emulated.storage!, endpoint: input.storageEndpoint } } : emulated
  if (input.local) return { ...base, disabled: true }
  if (input.sweepInterval) return { ...base, storage: { ...base.storage!, clientUploads: { sweepInterval: input.sweepInterval } } }
  if (input.scenario === 'default') return base
  return {
    ...base,
    storage: { ...base.storage!, clientUploads: { access: notOther, sweepInterval: 0 } },
    stream: { ...base.stream!, tus: { access: notOther } },
  }
}
