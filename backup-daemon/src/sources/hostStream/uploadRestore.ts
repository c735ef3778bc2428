/**
 * @module sources/hostStream/uploadRestore
 * The `host-stream` kind's `UploadRestore`: a restored source folder is uploaded into the library its
 * config names (or another one of the same API and key, `targetId`) by `restoreVideos`, and the old →
 * new GUID map is handed back for the CMS-aware step that rewrites the documents pointing at videos.
 */
import type { UploadRestore, UploadRestoreResult } from '../types.js'
import { restoreVideos, RestoreVideosError, type RestoreVideosResult } from './restoreVideos.js'
import type { HostStreamSourceConfig } from './schema.js'

export const hostStreamUploadRestore: UploadRestore<HostStreamSourceConfig> = {
  async upload(config, options) {
    const libraryId = options.targetId ?? config.libraryId
    const asResult = (r: RestoreVideosResult): UploadRestoreResult => ({ target: { libraryId }, ids: r.guidMap, skipped: r.skipped })
    options.log('info', `source "${config.name}": uploading the videos of ${options.folder} into library ${libraryId}`)
    try {
      const result = await restoreVideos({
        dir: options.folder,
        target: { apiBase: config.apiBase, libraryId, apiKey: config.apiKey },
        signal: options.signal,
        log: options.log,
      })
      return asResult(result)
    } catch (err) {
      if (err instanceof RestoreVideosError) throw Object.assign(new Error(err.message, { cause: err }), { partial: asResult(err.partial) })
      throw err
    }
  },
}
