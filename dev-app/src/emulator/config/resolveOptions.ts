/**
 * @module emulator/config/resolveOptions
 * Fills the defaults of {@link EmulatorOptions} once, so every concern reads one flat, typed object.
 */
import { randomBytes } from 'node:crypto'
import type { EmulatorOptions } from '../types.js'

/** A key nobody else knows: the emulator answers every local user, so its keys are never fixed strings. */
const randomKey = () => randomBytes(18).toString('base64url')

export interface ResolvedOptions {
  port: number
  host: string
  dataDir: string | undefined
  zoneName: string
  accessKey: string
  s3Region: string | undefined
  strictQueryChecksums: boolean
  tokenAuthKey: string | undefined
  inlineActiveContent: boolean
  blockedPaths: string[]
  headersTimeoutMs: number
  requestTimeoutMs: number
  libraryId: number
  apiKey: string
  readOnlyKey: string
  webhookUrl: string | undefined
  encodingStepMs: number
  mp4Fallback: boolean
  /** Mutable: `setKeepOriginals()` changes it at run time, for uploads that finish afterwards. */
  keepOriginals: boolean
  webhookRetries: number
  streamTokenAuthKey: string | undefined
  accountApiKey: string
  log: ((line: string) => void) | undefined
  /** `storage.extraZones`, keys filled. */
  extraZones: Array<{ zoneName: string; accessKey: string }>
  /** `stream.extraLibraries`, keys filled. */
  extraLibraries: Array<{ libraryId: number; apiKey: string; readOnlyKey: string }>
}

/** The defaults written in the TSDoc of `EmulatorOptions`. */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const resolved = resolveDefaults(options)
  // Checked before anything is written: a zone or library named twice would hide one behind the other.
  const zoneNames = [resolved.zoneName, ...resolved.extraZones.map((zone) => zone.zoneName)]
  const twiceZone = zoneNames.find((name, i) => zoneNames.indexOf(name) !== i)
  if (twiceZone !== undefined) throw new Error(`emulator: storage zone "${twiceZone}" is configured twice`)
  const libraryIds = [resolved.libraryId, ...resolved.extraLibraries.map((library) => library.libraryId)]
  const twiceLibrary = libraryIds.find((id, i) => libraryIds.indexOf(id) !== i)
  if (twiceLibrary !== undefined) throw new Error(`emulator: video library ${twiceLibrary} is configured twice`)
  return resolved
}

function resolveDefaults(options: EmulatorOptions): ResolvedOptions {
  return {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    dataDir: options.dataDir,
    zoneName: options.storage?.zoneName ?? 'dev-zone',
    accessKey: options.storage?.accessKey || randomKey(),
    s3Region: options.storage?.region,
    strictQueryChecksums: options.storage?.strictQueryChecksums ?? false,
    tokenAuthKey: options.pullZone?.tokenAuthKey || undefined,
    inlineActiveContent: options.pullZone?.inlineActiveContent ?? false,
    blockedPaths: (options.pullZone?.blockedPaths ?? []).map((p) => p.replace(/^\/+/, '').replace(/\/*$/, '/')),
    headersTimeoutMs: options.headersTimeoutMs ?? 10_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 30 * 60_000,
    libraryId: options.stream?.libraryId ?? 1001,
    apiKey: options.stream?.apiKey || randomKey(),
    readOnlyKey: options.stream?.readOnlyKey || randomKey(),
    webhookUrl: options.stream?.webhookUrl,
    encodingStepMs: options.stream?.encodingStepMs ?? 200,
    mp4Fallback: options.stream?.mp4Fallback ?? true,
    keepOriginals: options.stream?.keepOriginals ?? true,
    webhookRetries: options.stream?.webhookRetries ?? 4,
    streamTokenAuthKey: options.stream?.tokenAuthKey || undefined,
    accountApiKey: options.account?.apiKey || randomKey(),
    log: options.log,
    extraZones: (options.storage?.extraZones ?? []).map((zone) => ({ zoneName: zone.zoneName, accessKey: zone.accessKey || randomKey() })),
    extraLibraries: (options.stream?.extraLibraries ?? []).map((library) => ({
      libraryId: library.libraryId,
      apiKey: library.apiKey || randomKey(),
      readOnlyKey: library.readOnlyKey || randomKey(),
    })),
  }
}
