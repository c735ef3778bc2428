import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildUi, committedAssetsDir } from '../../src/ui/build/buildUi.js'
import { listFiles } from '../../src/ui/build/listFiles.js'

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')

describe('ui/build: the committed build', function () {
  this.timeout(60_000)
  let outDir: string
  let gzipBytes = 0

  before(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'ui-build-'))
    gzipBytes = (await buildUi({ outDir })).gzipBytes
  })
  after(() => rmSync(outDir, { recursive: true, force: true }))

  it('matches a fresh build of the source (else run `npm run build:ui -w backup-daemon` and commit ui/assets)', () => {
    const fresh = listFiles(outDir)
    expect(listFiles(committedAssetsDir), 'file list').to.deep.equal(fresh)
    for (const file of fresh) expect(digest(join(committedAssetsDir, file)), file).to.equal(digest(join(outDir, file)))
  })

  it('stays small: under 40 KiB gzipped (index.html, script, stylesheet)', () => {
    expect(gzipBytes).to.be.below(40 * 1024)
  })

  it('references nothing outside its own origin', () => {
    for (const file of listFiles(outDir)) {
      const text = readFileSync(join(outDir, file), 'utf8')
      expect(text, file).not.to.match(/(?:src|href)=["']?(?:https?:)?\/\//)
      expect(text, file).not.to.match(/@import\s+url\(\s*["']?https?:/)
    }
  })
})
