/**
 * @module test/emulator/helpers/fakeMp4
 * Builds a structurally valid MP4 (ftyp, moov with mvhd + an audio and a video trak/tkhd, mdat) with
 * a chosen frame size, so the emulator's `tkhd` sniffing is tested on real box layouts.
 */

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts)
  const header = Buffer.alloc(8)
  header.writeUInt32BE(body.length + 8, 0)
  header.write(type, 4, 'latin1')
  return Buffer.concat([header, body])
}

function mvhd(timescale: number, duration: number): Buffer {
  const body = Buffer.alloc(100)
  body.writeUInt32BE(timescale, 12)
  body.writeUInt32BE(duration, 16)
  return box('mvhd', body)
}

/** Version 0 tkhd: width/height (16.16) at offsets 76/80 of the body. */
function tkhd(width: number, height: number, version: 0 | 1 = 0): Buffer {
  const body = Buffer.alloc(version === 1 ? 96 : 84)
  body[0] = version
  const offset = version === 1 ? 88 : 76
  body.writeUInt32BE(width * 65536, offset)
  body.writeUInt32BE(height * 65536, offset + 4)
  return box('tkhd', body)
}

export interface FakeMp4Options {
  width: number
  height: number
  /** Seconds. @default 12 */
  duration?: number
  /** Bytes of (meaningless) media data in `mdat`. @default 4096 */
  mediaBytes?: number
  /** Put `moov` after `mdat`, as cameras write it. @default false */
  moovAtEnd?: boolean
  tkhdVersion?: 0 | 1
}

export function fakeMp4({ width, height, duration = 12, mediaBytes = 4096, moovAtEnd = false, tkhdVersion = 0 }: FakeMp4Options): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2avc1mp41'))
  const moov = box('moov', mvhd(1000, duration * 1000), box('trak', tkhd(0, 0, tkhdVersion)), box('trak', tkhd(width, height, tkhdVersion)))
  const media = Buffer.alloc(mediaBytes)
  for (let i = 0; i < mediaBytes; i++) media[i] = (i * 31) & 0xff
  const mdat = box('mdat', media)
  return moovAtEnd ? Buffer.concat([ftyp, mdat, moov]) : Buffer.concat([ftyp, moov, mdat])
}
