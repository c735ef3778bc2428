/**
 * @module config/publicZoneWarnings
 * Issue 28 #3: a `host` storage writing full snapshots (databases with password hashes included) into a
 * zone that a public pull zone serves hands them to anyone who guesses a name (names follow the run
 * time). The daemon cannot see the host's pull-zone settings, so the config says it: `zoneIsPublic:
 * true` on such a storage, and `pullZoneBlocksPath: true` once the pull zone refuses its `path`.
 * Anything else is warned about at every load (check-config and start).
 */
import type { DaemonConfig } from './types.js'
import type { Path } from './snaprAliases.js'

export interface PublicZoneWarning {
  path: Path
  message: string
}

export function publicZoneWarnings(config: DaemonConfig): PublicZoneWarning[] {
  const warnings: PublicZoneWarning[] = []
  config.jobs.forEach((job, index) =>
    job.storages.forEach((storage, at) => {
      if (storage.type !== 'host') return
      const { zoneIsPublic, pullZoneBlocksPath, path, zoneName, name } = storage as {
        zoneIsPublic?: boolean
        pullZoneBlocksPath?: boolean
        path?: string
        zoneName: string
        name: string
      }
      if (!zoneIsPublic || (pullZoneBlocksPath && path)) return
      warnings.push({
        path: ['jobs', index, 'storages', at, 'zoneIsPublic'],
        message:
          `WARNING: storage "${name}" writes snapshots into zone "${zoneName}", which a public pull zone serves: ` +
          'anyone who guesses a snapshot name can download it. Use a zone without a public pull zone, or set path ' +
          'to a folder the pull zone refuses (an Edge Rule) and pullZoneBlocksPath: true',
      })
    }),
  )
  return warnings
}
