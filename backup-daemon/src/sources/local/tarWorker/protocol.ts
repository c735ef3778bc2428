/**
 * @module sources/local/tarWorker/protocol
 * The messages between the main thread (`tarWorkerTree.ts`) and the tar worker (`tarWorkerMain.ts`), and
 * the shared control words: the number of steps posted and not yet consumed (backpressure: the worker
 * waits on it with `Atomics.wait`), a cancel flag (checked before every entry and read) and the steps
 * the worker holds while it sleeps on that wait (0 while it works: tests see the hold as it happens).
 */
import type { DigestKind } from '../../../tar/fileDigest.js'
import type { ChangedFile } from './treeTar.js'

export interface TarWorkerData {
  root: string
  name: string
  exclude: string[]
  top: { mode: number; mtimeMs: number }
  /** Int32Array over it: `[inFlight, cancel, holding]`. */
  control: SharedArrayBuffer
  /** Steps the worker may post before it waits for the main thread to consume one. */
  maxInFlight: number
  /** The digest of every file's record (`tar/snapshotRecord.ts`); none recorded without it. */
  record?: DigestKind
}

export const inFlightSlot = 0
export const cancelSlot = 1
export const holdingSlot = 2

/** One step's chunks, each `[memory, offset, length]` (the memory transferred, never shared). */
export interface StepMessage {
  kind: 'step'
  chunks: [ArrayBuffer, number, number][]
  files: number
  bytes: number
  current: string | undefined
  changed: ChangedFile[]
  /** Files finished in this step (when recording): the record's JSON items, comma-joined, as UTF-8 (its memory transferred). */
  recorded: Uint8Array
  logs: [level: 'info' | 'warn', message: string][]
  done: boolean
}

export interface ErrorMessage {
  kind: 'error'
  message: string
  code: string | undefined
  /** The walk stopped because the main thread cancelled it (not a failure). */
  cancelled: boolean
}

export type TarWorkerMessage = StepMessage | ErrorMessage
