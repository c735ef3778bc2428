/**
 * @module tasks/uploadIntoLibrary
 * A files restore with `intoLibrary` (the API's and the UI's `restore --to DIR --into-library`): once the
 * snapshot is unpacked into the folder, the job's sources that live in a service (a video library) are
 * uploaded from it again (`restore/uploadSources`), each item getting a new id; the old → new map goes to
 * `guid-map.json` in the folder (written after each source, and on a failure with what was uploaded before),
 * where the CMS-aware step that rewrites the restored site's documents reads it. No kind is named here.
 */
import { join } from 'node:path'
import type { JobConfig, SourceConfig } from '../config/types.js'
import { describeUploads, uploadableSources, uploadSources } from '../restore/uploadSources.js'
import type { TaskContext } from './TaskRunner.js'
import { TaskRefusedError } from './TaskRefusedError.js'

/** The map's file name inside the restored folder. */
export const guidMapName = 'guid-map.json'

export interface LibraryUpload {
  sources: SourceConfig[]
  /** Another library than each source's own. */
  targetId?: number
}

/** Checked before anything runs: the sources to upload, or a 400 naming what is wrong; undefined without `intoLibrary`. */
export function plannedUpload(job: JobConfig, target: { intoLibrary?: boolean; libraryId?: number }): LibraryUpload | undefined {
  if (!target.intoLibrary) {
    if (target.libraryId !== undefined) throw new TaskRefusedError(400, 'libraryId goes with intoLibrary: true')
    return undefined
  }
  const sources = uploadableSources(job.sources)
  if (sources.length === 0) throw new TaskRefusedError(400, `job "${job.name}" has no source restored by uploading into a library (intoLibrary)`)
  return { sources, ...(target.libraryId !== undefined && { targetId: target.libraryId }) }
}

/** Uploads from the restored `folder`; resolves with the summary's part, rejects naming the source (the files stay restored). */
export async function uploadIntoLibrary(upload: LibraryUpload, folder: string, context: TaskContext, mapFile = join(folder, guidMapName)): Promise<string> {
  context.meter.phase = 'uploading'
  try {
    const map = await uploadSources(upload.sources, {
      dir: folder,
      mapFile,
      ...(upload.targetId !== undefined && { targetId: upload.targetId }),
      signal: context.signal,
      log: (level, line) => context.log(level, line),
    })
    return describeUploads(map, mapFile)
  } catch (err) {
    throw new Error(`the files are restored into ${folder}, but uploading into the library failed: ${(err as Error).message}`, { cause: err })
  }
}
