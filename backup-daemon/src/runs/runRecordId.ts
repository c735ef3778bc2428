/**
 * @module runs/runRecordId
 * Ids of run records: sortable by start time as plain strings, unique within a job.
 */
import { randomBytes } from 'node:crypto'

export function runRecordId(startedAt: Date): string {
  return `${startedAt.getTime().toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`
}
