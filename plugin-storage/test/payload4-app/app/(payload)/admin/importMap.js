// The admin components of this app: the plugin's (written by hand: the 4.x core adds none for it).
import { StreamUploadHandler, TusUploadField } from '@hosted-media/plugin-storage/client'

/** @type import('payload').ImportMap */
export const importMap = {
  '@hosted-media/plugin-storage/client#StreamUploadHandler': StreamUploadHandler,
  '@hosted-media/plugin-storage/client#TusUploadField': TusUploadField,
}
