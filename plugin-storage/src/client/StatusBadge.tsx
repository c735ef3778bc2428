'use client'
/**
 * @module client/StatusBadge
 * The encoding status of a video as a coloured pill (Payload's theme colours), labelled through i18n.
 */
import type { CSSProperties } from 'react'

import { PLUGIN_KEY } from '../constants.js'
import { type StorageHostKey, useStorageHostT } from './useStorageHostT.js'

const COLOURS: Record<string, string> = {
  failed: 'var(--theme-error-500)',
  finished: 'var(--theme-success-500)',
  playable: 'var(--theme-success-400)',
  uploadFailed: 'var(--theme-error-500)',
}

export function StatusBadge({ status }: { status: string }) {
  const { t } = useStorageHostT()
  const style: CSSProperties = {
    background: COLOURS[status] ?? 'var(--theme-warning-500)',
    borderRadius: 999,
    color: 'var(--theme-elevation-0)',
    display: 'inline-block',
    fontSize: 12,
    fontWeight: 600,
    lineHeight: '20px',
    padding: '0 10px',
  }
  const label = t(`status.${status}` as StorageHostKey)
  return (
    <span className="storage-host-status" data-status={status} style={style}>
      {label.startsWith(`${PLUGIN_KEY}:`) ? status : label}
    </span>
  )
}
