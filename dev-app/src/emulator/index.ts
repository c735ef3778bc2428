/**
 * @module emulator
 * Public entry of the local emulator of the storage and streaming host (`dev-app/emulator`).
 */
export type { EmulatorOptions, RunningEmulator, EmulatedVideo } from './types.js'
export { startEmulator } from './startEmulator.js'
export { signCdnUrl } from './cdn/signCdnUrl.js'
export type { SignCdnUrlOptions } from './cdn/signCdnUrl.js'
export { cdnTokenSignature } from './cdn/cdnTokenSignature.js'
export { verifyCdnToken } from './cdn/verifyCdnToken.js'
export { tusSignature } from './tus/tusSignature.js'
export { webhookSignatureHeaders } from './encoding/sendWebhook.js'
export type { WebhookBody } from './encoding/sendWebhook.js'
export { VideoStatus, WebhookStatus } from './stream/statuses.js'
