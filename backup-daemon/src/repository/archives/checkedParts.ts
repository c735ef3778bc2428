/**
 * @module repository/archives/checkedParts
 * The parts of a snapshot with a manifest, joined in order, each checked as it is read: a part that ends
 * at another size than the manifest's, or whose sha256 differs, fails the read at its last byte (before a
 * reader can see the archive end). Each part is checked on its own, so the joined bytes are the ones the
 * manifest's parts describe; the whole archive's digest is for `verifySnapshot`, which also compares the
 * storage's listing with the manifest.
 */
import { createHash } from 'node:crypto'
import type { Readable } from 'node:stream'
import type { Storage } from '../../storages/types.js'
import type { Manifest } from './manifest.js'

export async function* checkedParts(storage: Storage, manifest: Pick<Manifest, 'parts'>): AsyncGenerator<Buffer> {
  for (const part of manifest.parts) {
    const hash = createHash('sha256')
    let size = 0
    const stream: Readable = await storage.open(part.key)
    for await (const chunk of stream) {
      const bytes = chunk as Buffer
      size += bytes.length
      if (size > part.size) throw new Error(`${part.key}: longer than the manifest's ${part.size} bytes: the stored copy is damaged`)
      hash.update(bytes)
      // The last bytes of a part are handed on only once the part is proven whole.
      if (size < part.size) yield bytes
      else {
        const sha256 = hash.digest('hex')
        if (sha256 !== part.sha256) throw new Error(`${part.key}: sha256 ${sha256}, the manifest says ${part.sha256}: the stored copy is damaged`)
        yield bytes
      }
    }
    if (size < part.size) throw new Error(`${part.key}: size ${size}, the manifest says ${part.size}: the stored copy is damaged`)
  }
}
