/**
 * @module start/remapRestoredVideos
 * The CMS-aware step of `npm run restore-site` (start/restoreSite.ts), run as its own process like the
 * seed (it loads the CMS config, whose settings come from the environment: `DATABASE_URI` names the
 * restored database, the emulator URL the restored library): reads the backup daemon's GUID map
 * (`RESTORE_GUID_MAP`, written by `restore --into-library --guid-map`) and moves the restored documents to
 * the new videos with plugin-storage's `remapStreamVideos`, through Payload's local API.
 */
import { readFile } from 'node:fs/promises'
import { getPayload } from 'payload'
import { remapStreamVideos, resolveOptions } from '@hosted-media/plugin-storage'
import config, { storagePluginOptions } from '../payload.config.js'
import { remapDoneLine } from './remapDone.js'

const mapFile = process.env.RESTORE_GUID_MAP
if (!mapFile) throw new Error('RESTORE_GUID_MAP must name the GUID map file of backup-daemon restore --into-library')
const map = JSON.parse(await readFile(mapFile, 'utf8')) as Record<string, { target: { libraryId?: number }; ids: Record<string, string> }>
const options = resolveOptions(storagePluginOptions)
const guidMap: Record<string, string> = {}
// The documents are moved to the libraries the CMS is configured with (each stream collection's): the videos must be there.
const libraries = new Set([...options.collections.values()].flatMap((collection) => (collection.stream ? [collection.stream.libraryId] : [])))
for (const [source, entry] of Object.entries(map)) {
  if (entry.target.libraryId !== undefined && !libraries.has(entry.target.libraryId)) {
    throw new Error(
      `source "${source}" was restored into library ${entry.target.libraryId}, the CMS uses ${[...libraries].map((id) => `library ${id}`).join(' and ')}`,
    )
  }
  Object.assign(guidMap, entry.ids)
}

const payload = await getPayload({ config })
const { updated, unused } = await remapStreamVideos(payload, options, { guidMap })
for (const { collection, id, from, to } of updated) console.log(`remap: ${collection} ${id}: video ${from} → ${to}`)
if (unused.length > 0) console.log(`remap: ${unused.length} restored video(s) no document points at: ${unused.join(', ')}`)
await payload.destroy()
console.log(remapDoneLine)
process.exit(0)
