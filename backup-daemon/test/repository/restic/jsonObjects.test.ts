/**
 * @module test/repository/restic/jsonObjects
 * `restic find --json`'s one-line document read node by node, whatever the chunk boundaries.
 */
import { expect } from 'chai'
import { Readable } from 'node:stream'
import { jsonObjectsAt } from '../../../src/repository/restic/jsonObjects.js'

describe('repository/restic/jsonObjects', () => {
  it('yields the objects at a depth, split anywhere, strings with braces and escapes included', async () => {
    const nodes = Array.from({ length: 50 }, (_, i) => ({ path: `/srv/{x}/"${i}"\\[`, type: i % 3 ? 'file' : 'dir', size: i * 10, ids: [i, { deep: i }] }))
    const text = Buffer.from(
      JSON.stringify([
        { matches: nodes, hits: 50, snapshot: 'abc' },
        { matches: [{ path: '/b' }], hits: 1 },
      ]),
    )
    for (const size of [1, 7, 64, text.length]) {
      const chunks: Buffer[] = []
      for (let i = 0; i < text.length; i += size) chunks.push(text.subarray(i, i + size))
      const found: unknown[] = []
      for await (const node of jsonObjectsAt(Readable.from(chunks), 3)) found.push(node)
      expect(found, `chunks of ${size}`).to.deep.equal([...nodes, { path: '/b' }])
    }
  })
})
