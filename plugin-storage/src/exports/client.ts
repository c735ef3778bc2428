/**
 * @module exports/client
 * Admin components, referenced by the server config as `@hosted-media/plugin-storage/client#<Name>`.
 */
export { HostDataSummary } from '../client/HostDataSummary.js'
export { StorageClientUploadHandler } from '../client/StorageClientUploadHandler.js'
export { StreamUploadHandler } from '../client/StreamUploadHandler.js'
export { TusUploadField } from '../client/TusUploadField.js'
export { VideoPanel } from '../client/VideoPanel.js'
