/**
 * @module test/support/media
 * Small real media for tests: a PNG made with sharp, and MP4 bytes with a valid ISO box structure
 * (`ftyp` + `mdat`), which both file-type and the emulator recognise as a video.
 */
import sharp from 'sharp'

export function pngBytes(width = 120, height = 80): Promise<Buffer> {
  return sharp({ create: { background: { b: 40, g: 120, r: 200 }, channels: 3, height, width } })
    .png()
    .toBuffer()
}

/** The first 32 bytes of an MP4 of `size` bytes: a 24-byte `ftyp` box, then the header of one `mdat` box. */
export function mp4Header(size: number): Buffer {
  const head = Buffer.alloc(32)
  head.writeUInt32BE(24, 0)
  head.write('ftypisom', 4, 'latin1')
  head.writeUInt32BE(0x200, 12)
  head.write('isommp41', 16, 'latin1')
  head.writeUInt32BE(size - 24, 24)
  head.write('mdat', 28, 'latin1')
  return head
}

/** An MP4 of `size` bytes: {@link mp4Header}, then `mdat` data with a recognisable pattern. */
export function mp4Bytes(size = 256 * 1024): Buffer {
  const buf = Buffer.alloc(size)
  mp4Header(size).copy(buf, 0)
  for (let i = 32; i < size; i++) buf[i] = (i * 31) & 0xff
  return buf
}

/** base64 of the first bytes, as the admin UI sends in `head`. */
export function headOf(bytes: Buffer, n = 4096): string {
  return bytes.subarray(0, n).toString('base64')
}
