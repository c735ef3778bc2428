import { expect } from 'chai'
import { lineSender } from '../../src/server/lineSender.js'

/** A client whose writes complete only when the test says so. */
function slowClient() {
  const written: string[] = []
  const pending: (() => void)[] = []
  return {
    written,
    write: (line: string) => new Promise<void>((resolve) => pending.push(() => (written.push(line), resolve()))),
    async drain() {
      while (pending.length > 0) {
        pending.shift()!()
        await new Promise((r) => setImmediate(r))
      }
    },
  }
}

describe('api: lineSender', () => {
  it('writes lines in order, one at a time', async () => {
    const client = slowClient()
    const send = lineSender({ write: client.write })
    for (const line of ['a', 'b', 'c']) send(line)
    await client.drain()
    expect(client.written).to.deep.equal(['a', 'b', 'c'])
  })

  it('drops lines beyond maxQueued and tells the client how many it missed', async () => {
    const client = slowClient()
    const send = lineSender({ write: client.write, maxQueued: 3 })
    for (let i = 1; i <= 6; i++) send(`line ${i}`)
    await client.drain()
    send('line 7')
    await client.drain()
    // line 1 is being written, lines 2 to 4 wait, 5 and 6 find the queue full.
    expect(client.written).to.deep.equal([
      'line 1',
      'line 2',
      'line 3',
      'line 4',
      '[2 line(s) skipped: the client reads more slowly than the log grows]',
      'line 7',
    ])
  })

  it('stops quietly when a write fails (client gone)', async () => {
    let calls = 0
    const send = lineSender({
      write: async () => {
        calls += 1
        throw new Error('closed')
      },
    })
    send('a')
    send('b')
    await new Promise((r) => setImmediate(r))
    expect(calls).to.equal(1)
  })

  it('keeps order across a long queue that is compacted while sending', async () => {
    const written: string[] = []
    const send = lineSender({ write: async (line) => void written.push(line) })
    for (let i = 0; i < 5000; i++) send(String(i))
    // Wait for the last line to be written (the queue drains asynchronously), within a generous deadline.
    const deadline = Date.now() + 10_000
    while (written.length < 5000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    expect(written).to.have.length(5000)
    expect(written.every((line, i) => line === String(i))).to.equal(true)
  })
})
