/**
 * The record's spool (`archive/recordSpool.ts`): a record is in memory up to `memoryCap`, past it in a
 * temporary file, and either way it is the whole JSON, comma-joined as the tar writer's pieces come; no
 * temporary file is left after the record is written (`cleanup`) or the archive fails (`discard`).
 */
import { expect } from 'chai'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { text } from 'node:stream/consumers'
import { memoryCap, RecordSpool } from '../../src/archive/recordSpool.js'
import { parseRecord } from '../../src/tar/snapshotRecord.js'

const item = (n: number) => JSON.stringify([`tree/f${n}`, n, '0badf00d'])
const bytes = (value: string) => new TextEncoder().encode(value)
/** `n` items in pieces of `perPiece`, as a tar writer's steps hand them over (one empty piece too). */
function pieces(n: number, perPiece: number): Uint8Array[] {
  const out: Uint8Array[] = [new Uint8Array(0)]
  for (let first = 0; first < n; first += perPiece) {
    const last = Math.min(n, first + perPiece)
    out.push(bytes(Array.from({ length: last - first }, (_, i) => item(first + i)).join(',')))
  }
  return out
}

describe('archive/recordSpool: the record in memory, or in a temporary file past its cap', () => {
  let tmp: string
  const spoolFolders = () => readdirSync(tmp).filter((name) => name.startsWith('backup-daemon-spool-'))
  const previousTmp = process.env.TMPDIR
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'record-spool-test-'))
    process.env.TMPDIR = tmp
  })
  afterEach(() => {
    if (previousTmp === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previousTmp
    rmSync(tmp, { recursive: true, force: true })
  })

  for (const [label, files] of [
    ['a small record stays in memory', 2000],
    ['a record past the cap goes to a temporary file', 200_000],
  ] as const) {
    it(`${label}, and is the whole record either way`, async () => {
      const spool = new RecordSpool('crc32', new AbortController().signal)
      for (const piece of pieces(files, 700)) spool.add(piece)
      const spooled = await spool.finish({ db: { type: 'sqlite', recorded: { tables: { posts: 3 } } } })
      const spilled = spooled.size > memoryCap
      expect(spilled).to.equal(files > 2000)
      expect(spoolFolders()).to.have.length(spilled ? 1 : 0)
      const record = parseRecord(Buffer.from(await text(spooled.open())))
      expect(Buffer.byteLength(JSON.stringify(record))).to.equal(spooled.size)
      expect(record.files).to.have.length(files)
      expect(record.files[files - 1]).to.deep.equal([`tree/f${files - 1}`, files - 1, '0badf00d'])
      expect(record.sources).to.deep.equal({ db: { type: 'sqlite', recorded: { tables: { posts: 3 } } } })
      await spooled.cleanup()
      expect(spoolFolders()).to.deep.equal([])
    })
  }

  it('a spilled record is removed when the archive fails (discard)', async () => {
    const spool = new RecordSpool('crc32', new AbortController().signal)
    for (const piece of pieces(200_000, 700)) spool.add(piece)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(spoolFolders()).to.have.length(1)
    await spool.discard()
    expect(spoolFolders()).to.deep.equal([])
  })
})
