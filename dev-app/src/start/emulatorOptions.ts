/**
 * @module start/emulatorOptions
 * The emulator as the dev-app runs it (`main.ts`) and as `restore-site` starts it on a restored data folder:
 * the storage zone and stream library of the settings, the CMS's webhook, and the daemon's snapshot folder
 * refused by the public pull zone.
 */
import path from 'node:path'
import type { startEmulator } from '../emulator/index.js'
import { ports } from '../ports.js'
import { settings } from '../settings.js'
import { privateBackupsPath } from './daemonConfig.js'

export function emulatorOptions(dataDir: string): Parameters<typeof startEmulator>[0] {
  return {
    port: ports.emulator,
    host: settings.bindAddress,
    dataDir: path.join(dataDir, 'host'),
    storage: { zoneName: settings.storage.zoneName, accessKey: settings.storage.accessKey, region: settings.storage.region },
    // The daemon's snapshots share the CMS's public zone: its pull zone refuses their folder.
    pullZone: { blockedPaths: [`${privateBackupsPath}/`] },
    stream: {
      libraryId: settings.stream.libraryId,
      apiKey: settings.stream.apiKey,
      readOnlyKey: settings.stream.readOnlyKey,
      // While the CMS is not running (restore-site), the remap reads each video's state from the library instead.
      webhookUrl: `${settings.serverURL}/api/storage-host/stream/webhook`,
      encodingStepMs: Number(process.env.EMULATOR_ENCODING_STEP_MS) || undefined,
    },
  }
}
