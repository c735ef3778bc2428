/**
 * @module emulator/storage/listDirectory
 * The storage API's directory listing: a JSON array of objects shaped like the real API's.
 */
import { createHash } from 'node:crypto'
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'

/** One entry of `GET /{zone}/{dir}/`, with the real API's field names. */
export interface StorageObject {
  Guid: string
  StorageZoneName: string
  Path: string
  ObjectName: string
  Length: number
  LastChanged: string
  ServerId: number
  ArrayNumber: number
  IsDirectory: boolean
  UserId: string
  ContentType: string
  DateCreated: string
  StorageZoneId: number
  Checksum: string | null
  ReplicatedZones: string
}

/** The API writes dates without a zone suffix (UTC), e.g. `2024-05-01T10:00:00.123`. */
function hostDate(date: Date): string {
  return date.toISOString().replace(/Z$/, '')
}

/** A stable GUID per object path, so repeated listings agree. */
function guidOf(zone: string, relative: string): string {
  const hex = createHash('sha1').update(`${zone}/${relative}`).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

export interface ListDirectoryArgs {
  zoneRoot: string
  zoneName: string
  /** Zone-relative directory, `''` for the root. */
  relativeDir: string
  checksums: Map<string, string>
}

/** Lists one directory (not recursive); a missing directory lists as empty. Entries sorted by name. */
export async function listDirectory({ zoneRoot, zoneName, relativeDir, checksums }: ListDirectoryArgs): Promise<StorageObject[]> {
  const absolute = path.join(zoneRoot, ...relativeDir.split('/').filter(Boolean))
  let names: string[]
  try {
    names = await readdir(absolute)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return []
    throw error
  }
  const dirPath = `/${zoneName}/${relativeDir ? `${relativeDir}/` : ''}`
  const objects: StorageObject[] = []
  for (const name of names.sort()) {
    const info = await stat(path.join(absolute, name)).catch(() => undefined)
    if (!info) continue
    const relative = relativeDir ? `${relativeDir}/${name}` : name
    objects.push({
      Guid: guidOf(zoneName, relative),
      StorageZoneName: zoneName,
      Path: dirPath,
      ObjectName: name,
      Length: info.isDirectory() ? 0 : info.size,
      LastChanged: hostDate(info.mtime),
      ServerId: 0,
      ArrayNumber: 0,
      IsDirectory: info.isDirectory(),
      UserId: '00000000-0000-0000-0000-000000000000',
      ContentType: '',
      DateCreated: hostDate(info.birthtimeMs > 0 ? info.birthtime : info.mtime),
      StorageZoneId: 0,
      Checksum: info.isDirectory() ? null : (checksums.get(relative) ?? null),
      ReplicatedZones: '',
    })
  }
  return objects
}
