/**
 * @module emulator/main
 * Runs the emulator by hand: `node --import tsx dev-app/src/emulator/main.ts`.
 * Port from EMULATOR_PORT (default 3100); keys random per start unless given by
 * EMULATOR_STORAGE_KEY, EMULATOR_STREAM_KEY, EMULATOR_READONLY_KEY; EMULATOR_WEBHOOK_URL,
 * EMULATOR_TOKEN_AUTH_KEY, EMULATOR_STREAM_TOKEN_AUTH_KEY, EMULATOR_ACCOUNT_KEY and EMULATOR_DATA_DIR are optional. Prints its URLs and (local, dev-only) keys.
 */
import { startEmulator } from './startEmulator.js'

const env = process.env
const emulator = await startEmulator({
  port: Number(env.EMULATOR_PORT ?? 3100),
  host: env.EMULATOR_HOST ?? '127.0.0.1',
  dataDir: env.EMULATOR_DATA_DIR,
  storage: { zoneName: env.EMULATOR_ZONE, accessKey: env.EMULATOR_STORAGE_KEY },
  pullZone: { tokenAuthKey: env.EMULATOR_TOKEN_AUTH_KEY },
  stream: {
    libraryId: env.EMULATOR_LIBRARY_ID ? Number(env.EMULATOR_LIBRARY_ID) : undefined,
    apiKey: env.EMULATOR_STREAM_KEY,
    readOnlyKey: env.EMULATOR_READONLY_KEY,
    webhookUrl: env.EMULATOR_WEBHOOK_URL,
    encodingStepMs: env.EMULATOR_ENCODING_STEP_MS ? Number(env.EMULATOR_ENCODING_STEP_MS) : undefined,
    tokenAuthKey: env.EMULATOR_STREAM_TOKEN_AUTH_KEY,
  },
  account: { apiKey: env.EMULATOR_ACCOUNT_KEY },
  log: (line) => console.log(line),
})

// The keys (random unless given), printed on purpose so a developer can configure a client by hand; the
// request log never prints them.
console.log(`host emulator listening on ${emulator.url}
  storage API      ${emulator.storage.endpoint}/${emulator.storage.zoneName}/   AccessKey: ${emulator.storage.accessKey}
  S3 endpoint      ${emulator.storage.s3Endpoint}   bucket/access key id: ${emulator.storage.zoneName}, secret: the storage AccessKey
  storage CDN      ${emulator.storage.cdnUrl}${emulator.storage.tokenAuthKey ? '   (token authentication on)' : ''}
  stream API       ${emulator.stream.apiBase}/library/${emulator.stream.libraryId}/videos   AccessKey: ${emulator.stream.apiKey}
  TUS endpoint     ${emulator.stream.tusEndpoint}
  stream CDN       ${emulator.stream.cdnUrl}${emulator.stream.tokenAuthKey ? '   (token authentication on)' : ''}
  purge API        ${emulator.account.apiBase}/purge?url=…   AccessKey: ${emulator.account.apiKey}   (log: ${emulator.url}/purge/log)
  webhook key      ${emulator.stream.readOnlyKey}   callbacks to: ${env.EMULATOR_WEBHOOK_URL ?? '(none)'}`)

const stop = () => {
  void emulator.close().then(() => process.exit(0))
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
