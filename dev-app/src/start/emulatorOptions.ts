/**
 * @module start/emulatorOptions
 * The emulator as the dev-app runs it (`main.ts`) and as `restore-site` starts it on a restored data folder:
 * the two storage zones and two stream libraries of the settings, the data folder's own random keys, the CMS's webhook,
 * and the daemon's snapshot folder refused by the public pull zone.
 */
import path from 'node:path'
import type { startEmulator } from '../emulator/index.js'
import { ports } from '../ports.js'
import { hostKeys, settings } from '../settings.js'
import { privateBackupsPath } from './daemonConfig.js'

/** The emulator of the data folder `dataDir`, with that folder's keys (`credentials.json`, or the `HOST_…` variables). */
export function emulatorOptions(dataDir: string): Parameters<typeof startEmulator>[0] {
  const keys = hostKeys(dataDir)
  return {
    port: ports.emulator,
    host: settings.bindAddress,
    dataDir: path.join(dataDir, 'host'),
    storage: {
      zoneName: settings.storage.zoneName,
      accessKey: keys.storageAccessKey,
      region: settings.storage.region,
      // The documents collection's zone: two zones, as a site that keeps product images apart from user files.
      extraZones: [{ zoneName: settings.documents.zoneName, accessKey: keys.documentsAccessKey }],
    },
    // The daemon's snapshots share the CMS's public zone: its pull zone refuses their folder.
    pullZone: { blockedPaths: [`${privateBackupsPath}/`] },
    account: { apiKey: keys.accountApiKey || undefined },
    stream: {
      libraryId: settings.stream.libraryId,
      apiKey: keys.streamApiKey,
      readOnlyKey: keys.webhookSecret,
      // While the CMS is not running (restore-site), the remap reads each video's state from the library instead.
      webhookUrl: `${settings.serverURL}/api/storage-host/stream/webhook`,
      encodingStepMs: Number(process.env.EMULATOR_ENCODING_STEP_MS) || undefined,
      // The private videos' library, with its own keys; its callbacks go to the same webhook endpoint.
      extraLibraries: [{ libraryId: settings.privateStream.libraryId, apiKey: keys.privateStreamApiKey, readOnlyKey: keys.privateWebhookSecret }],
    },
  }
}
