/**
 * @module repository/restic/restorePlan
 * Whether a folder source's snapshot may be handed to `restic restore` (restic's own parallel restorer,
 * about five times as fast as `restic dump` re-packed and unpacked by us), decided from restic's listing
 * before anything is written. A snapshot is untrusted input (issue 37), and restic restores what its tree
 * says: devices, FIFOs, set-user-ID bits. So only a tree the daemon's own unpacking (`restore/extractTo`)
 * would restore alike goes to restic: files, folders and links with ordinary names, each name once per
 * folder, no set-user-ID or set-group-ID bit. Anything else is restored through the tar path, with its
 * checks and messages. A name that is not UTF-8 comes lossily in the listing (U+FFFD), but restic restores
 * it byte for byte; two such names that read alike count as listed twice (the tar path then takes them).
 *
 * The listing (`restic find --json`) comes in walk order (a folder, then what it holds), so the checks
 * need only the folders on the current path and the names seen in each: memory grows with a folder's size,
 * not the tree's.
 */
import { Readable } from 'node:stream'
import type { RestoredFolder } from '../../restore/extractTo.js'
import { jsonObjectsAt } from './jsonObjects.js'
import type { ResticTarget } from './resticProcess.js'
import { resticLockedStream } from './resticSession.js'
import type { RunSource } from './resticRuns.js'

/** A node of `restic find --json` (the fields read). */
interface ListedNode {
  path: string
  type: string
  mode?: number
  size?: number
  mtime?: string
  uid?: number
  gid?: number
}

/** Go's `os.FileMode` bits, as restic stores them. */
const goMode = { setuid: 1 << 23, setgid: 1 << 22, sticky: 1 << 20 } as const

/** What restoring one folder source with restic will put in place, counted from its listing. */
export interface TreeRestorePlan {
  files: number
  directories: number
  links: number
  bytes: number
  /**
   * The source's root (`[source name]`) and every folder below it: their modes and times go back last (a merge
   * into an existing target changes them). restic's listing holds the root, which `restic dump` leaves out.
   */
  folders: RestoredFolder[]
  /** Entries restic will give to another user or group than the daemon's (a restore as root restores owners). */
  foreignOwners: number
}

/** The tree cannot go to `restic restore`: why, in words (the restore then takes the tar path). */
export interface NotForRestic {
  because: string
}

interface OpenFolder {
  path: string
  names: Set<string>
}

/** Plans the restore of `source` (a folder source) from restic's listing of its snapshot. */
export async function planTreeRestore(target: ResticTarget, source: RunSource, signal?: AbortSignal): Promise<TreeRestorePlan | NotForRestic> {
  const plan: TreeRestorePlan = { files: 0, directories: 0, links: 0, bytes: 0, folders: [], foreignOwners: 0 }
  const [uid, gid] = [process.getuid?.(), process.getgid?.()]
  const root = `/${source.root.replace(/^\/+|\/+$/g, '')}`
  const open: OpenFolder[] = [{ path: '', names: new Set() }]
  // restic's shared lock: beside another process's exclusive one (a commit's `tag`, a prune, a check) it waits, as a backup does.
  const listing = Readable.from(resticLockedStream(target, ['find', '--json', '--snapshot', source.id, '*'], signal ? { signal } : {}), { objectMode: false })
  try {
    for await (const node of jsonObjectsAt<ListedNode>(listing, 3)) {
      while (open.length > 1 && !node.path.startsWith(`${open.at(-1)!.path}/`)) open.pop()
      const parent = open.at(-1)!
      const name = node.path.slice(parent.path.length + 1)
      const shown = JSON.stringify(node.path)
      if (!node.path.startsWith(`${parent.path}/`) || name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0'))
        return { because: `its listing has an entry with an unusual name (${shown})` }
      if (parent.names.has(name)) return { because: `${shown} is listed twice in its folder` }
      parent.names.add(name)
      const mode = node.mode ?? 0
      if (mode & (goMode.setuid | goMode.setgid)) return { because: `${shown} has a set-user-ID or set-group-ID bit, which is not restored` }
      const below = node.path.startsWith(`${root}/`)
      if ((below || node.path === root) && (node.uid !== uid || node.gid !== gid)) plan.foreignOwners++
      if (node.type === 'dir') {
        open.push({ path: node.path, names: new Set() })
        if (!below && node.path !== root) continue
        if (below) plan.directories++
        // A name the listing gave lossily cannot be opened by it: restic itself has set that folder's mode and time.
        if (node.path.includes('\ufffd')) continue
        const components = [source.name, ...(below ? node.path.slice(root.length + 1).split('/') : [])]
        const mtime = node.mtime ? new Date(node.mtime) : new Date(0)
        plan.folders.push({ components, mode: (mode & 0o777) | (mode & goMode.sticky ? 0o1000 : 0), mtime })
      } else if (node.type === 'file') {
        plan.files++
        plan.bytes += node.size ?? 0
      } else if (node.type === 'symlink') plan.links++
      else return { because: `${shown} is a ${node.type}, which is not restored` }
    }
  } finally {
    listing.destroy()
  }
  return plan
}
