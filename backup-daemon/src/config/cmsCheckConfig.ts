/**
 * @module config/cmsCheckConfig
 * `jobs[].drill.cms`: the restore drill's check of a Payload CMS as a whole (`restore/drill/cmsCheck`).
 * It names the job's sources by role (the database, the uploads' files, the video library) rather than
 * assuming the dev-app's, so any Payload site backed up by one job can use it; `collections` says which
 * collections hold uploads or videos, found in the restored database when left out.
 */
import { z } from 'zod'

const collection = z.strictObject({
  /** The collection's slug; its table is the slug in snake case (Payload's SQL adapters) unless `table` says. */
  slug: z.string().min(1),
  /** `uploads`: its documents' files (and image sizes) are in `uploads`; `videos`: its `hostData.stream.videoId` is in `videos`. */
  check: z.enum(['uploads', 'videos']),
  /** Folder of the collection's files inside the uploads source (the storage plugin's collection `prefix`). @default '' */
  prefix: z.string().default(''),
  table: z.string().min(1).optional(),
})

export const cmsCheckSchema = z.strictObject({
  /** The source holding the CMS's database (a kind whose drill reads restored tables). */
  database: z.string().min(1),
  /** The source holding the upload collections' files. */
  uploads: z.string().min(1).optional(),
  /** The source holding the video library (a kind whose drill lists the restored video ids). */
  videos: z.string().min(1).optional(),
  collections: z.array(collection).min(1).optional(),
})

export type CmsCheckConfig = z.output<typeof cmsCheckSchema>
export type CmsCollectionConfig = CmsCheckConfig extends { collections?: (infer T)[] } ? T : never
