/**
 * @module constants
 * Paths of the plugin's endpoints (relative to the CMS API route, usually `/api`), shared by the server
 * and the admin components so they never drift apart.
 */

/**
 * The plugin's one name, "storage host", in kebab-case where it is a slug: endpoint paths (the spec's
 * `/api/storage-host/...`), OpenAPI tags, adapter names, log prefixes (README, "The plugin's name").
 */
export const PLUGIN_SLUG = 'storage-host'

/** The same name in camelCase, where a key cannot hold a hyphen: the i18n namespace, `req.context` keys, exports. */
export const PLUGIN_KEY = 'storageHost'

/** `POST /api/storage-host/stream/tus-auth`: authorise a TUS upload. */
export const TUS_AUTH_PATH = `/${PLUGIN_SLUG}/stream/tus-auth`

/** `POST /api/storage-host/stream/webhook`: encoding callbacks of the streaming host. */
export const WEBHOOK_PATH = `/${PLUGIN_SLUG}/stream/webhook`

/** `POST /api/storage-host/storage/upload`: presigned URL for a client upload (earlier generation). */
export const STORAGE_UPLOAD_PATH = `/${PLUGIN_SLUG}/storage/upload`

/**
 * Name of the upload instruction a 4.x admin dispatches (`payload:upload:<name>` window event) when it
 * saves a video document: the TUS field has uploaded the video already and answers with its receipt.
 */
export const TUS_UPLOAD_INSTRUCTION = 'storage-host-tus'

/** Maximum length of the base64 `head` of tus-auth. */
export const MAX_HEAD_CHARS = 8192

/** Lifetime of a `videoToken`, in seconds (24 h). */
export const VIDEO_TOKEN_TTL_SECONDS = 24 * 60 * 60

/** Lifetime of Payload's client-upload receipts (payload/dist/uploads/clientUploadReceipt.js), in ms. */
export const RECEIPT_LIFETIME_MS = 6 * 60 * 60 * 1000

/** Key under `req.context` set by the plugin's own document updates (webhook), so its hooks skip them. */
export const INTERNAL_UPDATE_CONTEXT = 'storageHostInternalUpdate'
