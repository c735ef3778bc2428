/**
 * @module openapi/operations
 * OpenAPI 3.1 operation objects of the plugin's endpoints, attached as `endpoint.custom.openapi` so that
 * plugin-openapi documents them without knowing this plugin.
 */

type Schema = Record<string, unknown>

/** A required JSON request body. */
const jsonBody = (schema: Schema) => ({ required: true, content: { 'application/json': { schema } } })
/** A JSON response. */
const jsonResponse = (description: string, schema: Schema) => ({ description, content: { 'application/json': { schema } } })
/** The plugin's error body `{errors: [{message}]}`. */
const err = (description: string) =>
  jsonResponse(description, {
    properties: { errors: { items: { properties: { message: { type: 'string' } }, required: ['message'], type: 'object' }, type: 'array' } },
    required: ['errors'],
    type: 'object',
  })

export const tusAuthOperation = {
  operationId: 'storageHostTusAuth',
  summary: 'Authorise a TUS resumable upload to the streaming host',
  tags: ['storage-host'],
  security: [{ cookieAuth: [] }, { bearerAuth: [] }],
  requestBody: jsonBody({
    type: 'object',
    required: ['collection', 'filename', 'filesize', 'filetype'],
    properties: {
      collection: { type: 'string', description: 'target upload collection' },
      filename: { type: 'string' },
      filesize: { type: 'integer', minimum: 1 },
      filetype: { type: 'string', description: 'MIME type' },
      head: { type: 'string', maxLength: 8192, description: 'base64 of the first bytes of the file' },
      title: { type: 'string', description: 'required when a new video is created' },
      videoId: { type: 'string', description: 'resume: GUID of an existing video' },
      videoToken: { type: 'string', description: 'resume: the token returned with videoId' },
    },
  }),
  responses: {
    '200': jsonResponse('Signature to proceed (`upload`) or the video is already on the host (`uploaded`)', {
      type: 'object',
      required: ['type', 'videoId', 'videoToken', 'libraryId'],
      properties: {
        type: { enum: ['upload', 'uploaded'], type: 'string' },
        videoId: { type: 'string' },
        videoToken: { type: 'string' },
        libraryId: { type: 'integer' },
        authorizationSignature: { type: 'string' },
        authorizationExpire: { type: 'integer' },
        thumbnailTime: { type: 'integer' },
        filename: { type: 'string' },
        signedReceipt: { type: 'string' },
        status: { type: 'string' },
      },
    }),
    '400': err('Missing or invalid fields, SVG/XML, missing title, TUS not enabled for the collection'),
    '403': err('Access denied'),
    '404': err('Unknown collection'),
    '413': err('File larger than upload.limits.fileSize'),
    '415': err('File type restricted or not accepted'),
    '500': err('Upstream failure (details hidden)'),
  },
}

export const webhookOperation = {
  operationId: 'storageHostStreamWebhook',
  summary: 'Encoding-status callback of the streaming host',
  tags: ['storage-host'],
  security: [],
  parameters: [
    { in: 'header', name: 'X-HostStream-Signature', required: true, schema: { pattern: '^[0-9a-f]{64}$', type: 'string' } },
    { in: 'header', name: 'X-HostStream-Signature-Algorithm', required: true, schema: { const: 'hmac-sha256', type: 'string' } },
    { in: 'header', name: 'X-HostStream-Signature-Version', required: true, schema: { const: 'v1', type: 'string' } },
  ],
  requestBody: jsonBody({
    type: 'object',
    required: ['Status', 'VideoGuid', 'VideoLibraryId'],
    properties: { Status: { type: 'integer' }, VideoGuid: { type: 'string' }, VideoLibraryId: { type: 'integer' } },
  }),
  responses: {
    '200': jsonResponse('Acknowledged', { type: 'object', properties: { message: { const: 'Acknowledged', type: 'string' } } }),
    '400': err('Wrong signature algorithm or version, or malformed body'),
    '401': err('Missing or bad signature, or unknown library'),
    '413': err('Body larger than 64 KiB (refused before the signature is checked)'),
  },
}

export const storageUploadOperation = {
  operationId: 'storageHostClientUpload',
  summary: 'Presigned URL for a browser-direct upload to the storage host',
  tags: ['storage-host'],
  security: [{ cookieAuth: [] }, { bearerAuth: [] }],
  requestBody: jsonBody({
    type: 'object',
    required: ['collectionSlug', 'filename', 'mimeType', 'size'],
    properties: {
      collectionSlug: { type: 'string' },
      filename: { type: 'string' },
      mimeType: { type: 'string' },
      size: { type: 'integer', minimum: 0 },
      docPrefix: { type: 'string' },
    },
  }),
  responses: {
    '200': jsonResponse('PUT the bytes to `url` with `headers`, then create the document with `clientUploadContext`', {
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri' },
        method: { const: 'PUT', type: 'string' },
        headers: { additionalProperties: { type: 'string' }, type: 'object' },
        filename: { type: 'string' },
        expiresAt: { type: 'integer' },
        clientUploadContext: {
          type: 'object',
          properties: { _objectKey: { type: 'string' }, prefix: { type: 'string' }, signedReceipt: { type: 'string' } },
        },
      },
    }),
    '400': err('Invalid file name, MIME type or size; SVG/XML'),
    '403': err('Access denied'),
    '404': err('Unknown collection'),
    '413': err('File larger than upload.limits.fileSize'),
    '415': err('Restricted file type, or a type outside the collection mimeTypes'),
  },
}

/**
 * `GET /api/{collection}/{id}/playback` of one stream collection (operation ids are unique per collection).
 * No `security` and no `id` parameter of its own: the collection's read access decides, as on `GET
 * /api/{collection}/{id}` (anonymous readers of a public collection get URLs), so plugin-openapi marks it
 * like its other read operations (any credential or none), and it types `{id}` as the collection's ID.
 */
export const playbackOperation = (collection: string) => ({
  operationId: `storageHostPlayback_${collection.replace(/[^A-Za-z0-9]/g, '_')}`,
  summary: 'Player URLs of a video document (HLS, MP4 fallback, thumbnail); signed when the stream pull zone has token authentication',
  description: "The collection's read access runs for the document, as for reading it: a public collection answers anonymous callers too.",
  // Listed with the collection's own operations (plugin-openapi tags collection endpoints by slug).
  tags: [collection],
  responses: {
    '200': jsonResponse('Player URLs (signed URLs expire at `expiresAt`)', {
      type: 'object',
      required: ['mp4'],
      properties: {
        hls: { type: 'string', format: 'uri' },
        mp4: {
          type: 'array',
          items: { type: 'object', required: ['resolution', 'url'], properties: { resolution: { type: 'string' }, url: { type: 'string', format: 'uri' } } },
        },
        thumbnail: { type: 'string', format: 'uri' },
        expiresAt: { type: 'string', format: 'date-time' },
      },
    }),
    '403': err("The collection's read access refuses this document"),
    '404': err('No such document, or its video has not finished encoding'),
    '500': err('Unexpected failure (details hidden)'),
  },
})
