/**
 * @module test/repository/restic/support/treeOf
 * A folder's contents for comparisons: relative path → sha256 of a file, `dir`, or `-> target` of a link.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile, readlink } from 'node:fs/promises'
import { join, relative } from 'node:path'

/** Every file, folder and link below `root`: relative path → sha256, `dir` or `-> target`. */
export async function treeOf(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      const key = relative(root, path)
      if (entry.isDirectory()) {
        out[key] = 'dir'
        await walk(path)
      } else if (entry.isSymbolicLink()) out[key] = `-> ${await readlink(path)}`
      else
        out[key] = createHash('sha256')
          .update(await readFile(path))
          .digest('hex')
    }
  }
  await walk(root)
  return out
}
