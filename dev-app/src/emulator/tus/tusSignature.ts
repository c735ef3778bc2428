/**
 * @module emulator/tus/tusSignature
 * The streaming host's TUS authorization: `hex(sha256(libraryId + apiKey + expirationTime + videoId))`.
 */
import { createHash } from 'node:crypto'

export function tusSignature(libraryId: number | string, apiKey: string, expirationTime: number | string, videoId: string): string {
  return createHash('sha256').update(`${libraryId}${apiKey}${expirationTime}${videoId}`, 'utf8').digest('hex')
}
