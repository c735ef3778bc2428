// The admin components of this app: the plugin's (written by hand: the 4.x core adds none for it). Every
// `@hosted-media/plugin-storage/client#<Name>` the plugin's config names must be here, or the 4.x admin
// renders nothing in its place (only the server log says `PayloadComponent not found in importMap`).
// `StorageClientUploadHandler` is not: on 4.x the core's own client-upload handler is used.
import { HostDataSummary, StreamUploadHandler, TusUploadField, VideoPanel } from '@hosted-media/plugin-storage/client'

/** @type import('payload').ImportMap */
export const importMap = {
  '@hosted-media/plugin-storage/client#HostDataSummary': HostDataSummary,
  '@hosted-media/plugin-storage/client#StreamUploadHandler': StreamUploadHandler,
  '@hosted-media/plugin-storage/client#TusUploadField': TusUploadField,
  '@hosted-media/plugin-storage/client#VideoPanel': VideoPanel,
}
