import { expect } from 'chai'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { resolveInside } from '../../src/emulator/auth/resolveInside.js'
import { safeEqual } from '../../src/emulator/auth/safeEqual.js'
import { planResolutions } from '../../src/emulator/encoding/planResolutions.js'
import { sniffVideo } from '../../src/emulator/encoding/sniffVideo.js'
import { parseRange } from '../../src/emulator/http/serveFile.js'
import { tusSignature } from '../../src/emulator/index.js'
import { fakeMp4 } from './helpers/fakeMp4.js'

describe('emulator internals', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'emulator-internals-'))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  describe('sniffVideo', () => {
    const sniff = async (name: string, bytes: Buffer) => {
      const file = path.join(dir, name)
      await writeFile(file, bytes)
      return sniffVideo(file)
    }

    it('reads the video track size (not the audio track) and the duration, moov first or last', async () => {
      expect(await sniff('a.mp4', fakeMp4({ width: 1920, height: 1080, duration: 7 }))).to.deep.equal({
        isVideo: true,
        container: 'mp4',
        width: 1920,
        height: 1080,
        duration: 7,
      })
      expect(await sniff('b.mp4', fakeMp4({ width: 854, height: 480, moovAtEnd: true, mediaBytes: 300_000 }))).to.include({ width: 854, height: 480 })
      expect(await sniff('c.mp4', fakeMp4({ width: 3840, height: 2160, tkhdVersion: 1 }))).to.include({ width: 3840, height: 2160 })
    })

    it('knows other containers by magic bytes but cannot size them', async () => {
      const webm = Buffer.concat([Buffer.from('1a45dfa3', 'hex'), Buffer.alloc(64)])
      expect(await sniff('d.webm', webm)).to.deep.equal({ isVideo: true, container: 'matroska', width: undefined, height: undefined, duration: undefined })
    })

    it('says no for documents, images and an empty file', async () => {
      expect((await sniff('e.pdf', Buffer.from('%PDF-1.7\n'))).isVideo).to.equal(false)
      expect((await sniff('f.png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))).isVideo).to.equal(false)
      expect((await sniff('g.bin', Buffer.alloc(0))).isVideo).to.equal(false)
    })

    it('survives a truncated moov', async () => {
      const whole = fakeMp4({ width: 640, height: 360 })
      const facts = await sniff('h.mp4', whole.subarray(0, 60))
      expect(facts.isVideo).to.equal(true)
      expect(facts.width).to.equal(undefined)
    })
  })

  describe('planResolutions', () => {
    it('follows the ladder up to the source, MP4 fallback up to 720p', () => {
      expect(planResolutions(1080, true)).to.deep.equal({ hls: ['240p', '360p', '480p', '720p', '1080p'], mp4: [240, 360, 480, 720] })
      expect(planResolutions(500, true)).to.deep.equal({ hls: ['240p', '360p', '480p'], mp4: [240, 360, 480] })
      expect(planResolutions(2160, false).mp4).to.deep.equal([])
    })
    it('keeps a tiny source at its own height', () => {
      expect(planResolutions(144, true)).to.deep.equal({ hls: ['144p'], mp4: [144] })
    })
  })

  describe('parseRange', () => {
    it('parses single ranges and refuses unsatisfiable ones', () => {
      expect(parseRange('bytes=0-0', 10)).to.deep.equal({ start: 0, end: 0 })
      expect(parseRange('bytes=5-', 10)).to.deep.equal({ start: 5, end: 9 })
      expect(parseRange('bytes=-4', 10)).to.deep.equal({ start: 6, end: 9 })
      expect(parseRange('bytes=3-100', 10)).to.deep.equal({ start: 3, end: 9 })
      expect(parseRange('bytes=10-', 10)).to.equal(null)
      expect(parseRange('bytes=0-1,4-5', 10)).to.equal(undefined)
      expect(parseRange(undefined, 10)).to.equal(undefined)
    })
  })

  describe('resolveInside', () => {
    it('joins decoded segments under the root', () => {
      expect(resolveInside('/data/zone', 'a/b%20c.txt')).to.deep.equal({ absolute: '/data/zone/a/b c.txt', relative: 'a/b c.txt' })
      expect(resolveInside('/data/zone', '')).to.deep.equal({ absolute: '/data/zone', relative: '' })
      expect(resolveInside('/data/zone', 'dir/')).to.deep.equal({ absolute: '/data/zone/dir', relative: 'dir' })
    })
    it('refuses every escape', () => {
      for (const bad of ['..', 'a/../../b', '%2e%2e/x', 'a/%2F/b', 'a%2Fb', 'a//b', 'a/./b', 'a%5C..%5Cb', 'a%00b', '%E0%A4%A']) {
        expect(resolveInside('/data/zone', bad), bad).to.equal(undefined)
      }
    })
  })

  it('tusSignature is sha256 over libraryId + apiKey + expire + videoId', () => {
    // Known answer computed independently: printf '%s' '1001key1700000000vid' | sha256sum
    expect(tusSignature(1001, 'key', 1700000000, 'vid')).to.equal('f157c89aad03058cc05d7d4e3cfae6b5fbedb97cc4349a279acf82ade40337d4')
  })

  it('safeEqual compares exactly', () => {
    expect(safeEqual('abc', 'abc')).to.equal(true)
    expect(safeEqual('abc', 'abd')).to.equal(false)
    expect(safeEqual('abc', 'abcd')).to.equal(false)
    expect(safeEqual(undefined, 'abc')).to.equal(false)
  })
})
