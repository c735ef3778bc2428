/**
 * `archive/readAhead.ts`: entries come out in source order, small files' reads start ahead of the
 * writer within the limits, the source is never advanced past a streamed entry the writer has not
 * taken yet, and an abort ends the walk with the reason instead of hanging.
 */
import { expect } from 'chai'
import { Readable } from 'node:stream'
import { readAhead } from '../../src/archive/readAhead.js'
import type { SourceEntry } from '../../src/sources/types.js'

/** A source of `count` files; every 10th is streamed (`open` only), the others small (`read`). */
function source(count: number, log: string[]): AsyncIterable<SourceEntry> {
  return (async function* () {
    for (let i = 0; i < count; i++) {
      log.push(`yield ${i}`)
      const body = Buffer.from(`file ${i}`)
      const streamed = i % 10 === 9
      yield {
        name: `f${i}`,
        type: 'file',
        mode: 0o644,
        mtime: new Date(0),
        size: body.length,
        open: () => {
          log.push(`open ${i}`)
          return Readable.from([body])
        },
        read: streamed
          ? undefined
          : async () => {
              log.push(`read ${i}`)
              await new Promise((resolve) => setTimeout(resolve, 1))
              return body
            },
      }
    }
  })()
}

describe('archive/readAhead', () => {
  it('keeps source order, reads small files ahead, and waits at a streamed entry until it is taken', async () => {
    const log: string[] = []
    const names: string[] = []
    for await (const { entry, data } of readAhead(source(35, log), new AbortController().signal, { entries: 8 })) {
      names.push(entry.name)
      // Never more than `entries` pulled ahead of the writer (plus the one being pulled).
      expect(log.filter((line) => line.startsWith('yield')).length).to.be.at.most(names.length + 8 + 1)
      if (data) expect((await data).toString()).to.equal(`file ${entry.name.slice(1)}`)
      else {
        // The source has not moved past this entry: its descriptor would be closed if it had.
        expect(log.at(-1)).to.equal(`yield ${entry.name.slice(1)}`)
        entry.open!(new AbortController().signal)
      }
    }
    expect(names).to.deep.equal(Array.from({ length: 35 }, (_, i) => `f${i}`))
    // Reads ran ahead of the writer: several were asked for before the walk reached file 9.
    expect(log.indexOf('read 3')).to.be.below(log.indexOf('yield 9'))
  })

  it('an abort ends the walk with the reason', async () => {
    const controller = new AbortController()
    const log: string[] = []
    const endless = (async function* () {
      for (;;) yield* source(1, log)
    })()
    let seen = 0
    const err = await (async () => {
      for await (const { data } of readAhead(endless, controller.signal)) {
        await data
        if (++seen === 100) controller.abort(new Error('stop now'))
      }
    })().catch((e: Error) => e)
    expect(err).to.be.instanceOf(Error)
    expect((err as Error).message).to.equal('stop now')
  })
})
