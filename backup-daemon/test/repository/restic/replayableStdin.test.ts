/**
 * @module test/repository/restic/replayableStdin
 * A dump's stdin for restic that starts again after a refused attempt (restic < 0.16 and a lock held
 * elsewhere): the second attempt gets every byte in order, whatever the first one pulled.
 */
import { expect } from 'chai'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { replayableStdin } from '../../../src/repository/restic/replayableStdin.js'

const chunks = Array.from({ length: 200 }, (_, i) => Buffer.from(`chunk ${i};`))

describe('repository/restic/replayableStdin', () => {
  it('replays what a refused attempt pulled, then the rest, in order', async () => {
    const stdin = replayableStdin(Readable.from(chunks, { objectMode: false }))
    const first = stdin.attempt()
    let pulled = 0
    for await (const _chunk of first) if (++pulled === 5) break
    expect(stdin.replayable).to.equal(true)
    expect((await buffer(stdin.attempt())).toString()).to.equal(Buffer.concat(chunks).toString())
  })

  it('stops keeping past its limit (no new attempt can be complete then)', async () => {
    const big = Array.from({ length: 20 }, () => Buffer.alloc(1 << 20, 7))
    const stdin = replayableStdin(Readable.from(big, { objectMode: false }))
    expect((await buffer(stdin.attempt())).length).to.equal(20 << 20)
    expect(stdin.replayable).to.equal(false)
  })
})
