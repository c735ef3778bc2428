'use client'
/**
 * @module client/EncodingStatus
 * A video that is not finished: its status and progress as the host reports them (refreshed live by
 * liveVideo.ts), its thumbnail once the host has one, and on a failed encode the failure with a way to
 * retry: picking the file again puts it in the form, the TUS field uploads it, saving binds the new video.
 */
import { useField } from '@payloadcms/ui'
import { type ChangeEvent, useRef } from 'react'

import type { StreamHostData } from '../types.js'
import { FAILED_STATUSES } from './liveVideo.js'
import { StatusBadge } from './StatusBadge.js'
import { useStorageHostT } from './useStorageHostT.js'

export interface EncodingStatusProps {
  stream: StreamHostData
  thumbnailURL?: null | string
}

export function EncodingStatus({ stream, thumbnailURL }: EncodingStatusProps) {
  const { t } = useStorageHostT()
  const { setValue: setFile } = useField<File | null>({ path: 'file' })
  const picker = useRef<HTMLInputElement>(null)
  const status = stream.status ?? 'uploading'
  const failed = FAILED_STATUSES.has(status)
  const percent = Math.max(0, Math.min(100, Math.round(stream.encodeProgress ?? 0)))
  const onPick = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0]
    if (file) setFile(file)
  }
  return (
    <div className="storage-host-encoding" data-status={status} style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
      <div style={{ alignItems: 'center', display: 'flex', gap: 12 }}>
        <strong>{t('encoding')}</strong>
        <StatusBadge status={status} />
        {!failed && <span className="storage-host-encoding__percent">{percent}%</span>}
      </div>
      {!failed && <progress aria-label={t('progress')} max={100} style={{ width: '100%' }} value={percent} />}
      {failed && (
        <div className="storage-host-encoding__failed" role="alert" style={{ color: 'var(--theme-error-500)' }}>
          <p>{t('encodeFailed')}</p>
          <input accept="video/*" hidden onChange={onPick} ref={picker} type="file" />
          <button className="btn btn--style-secondary btn--size-small" onClick={() => picker.current?.click()} type="button">
            {t('retryUpload')}
          </button>
          <p className="field-description">{t('retryHint')}</p>
        </div>
      )}
      {thumbnailURL ? (
        <img alt={t('thumbnail')} className="storage-host-encoding__thumbnail" src={thumbnailURL} style={{ maxWidth: 320, borderRadius: 4 }} />
      ) : (
        !failed && <p className="field-description">{t('waitingForThumbnail')}</p>
      )}
    </div>
  )
}
