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

/** An MP4 of `size` bytes: a 24-byte `ftyp` box then one `mdat` box with a recognisable pattern. */
export function mp4Bytes(size = 256 * 1024): Buffer {
  const buf = Buffer.alloc(size)
  buf.writeUInt32BE(24, 0)
  buf.write('ftypisom', 4, 'latin1')
  buf.writeUInt32BE(0x200, 12)
  buf.write('isommp41', 16, 'latin1')
  buf.writeUInt32BE(size - 24, 24)
  buf.write('mdat', 28, 'latin1')
  for (let i = 32; i < size; i++) buf[i] = (i * 31) & 0xff
  return buf
}

/** base64 of the first bytes, as the admin UI sends in `head`. */
export function headOf(bytes: Buffer, n = 4096): string {
  return bytes.subarray(0, n).toString('base64')
}
