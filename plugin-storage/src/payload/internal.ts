/**
 * @module payload/internal
 * The one place that imports `payload/internal` (not a stable API: payload says it may change without a
 * major version). Everything the plugin needs from it is re-exported here, so an upgrade touches one file.
 */
export {
  assertClientUploadAccess,
  assertClientUploadAllowed,
  assertClientUploadFileSize,
  createClientUploadReceipt,
  getSafeFileName,
  isSvgMimeType,
  isXmlMimeType,
  verifyClientUploadReceipt,
} from 'payload/internal'
export { UPLOAD_CONTENT_SECURITY_POLICY } from 'payload/internal'
