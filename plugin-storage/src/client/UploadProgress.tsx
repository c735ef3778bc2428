'use client'
/**
 * @module client/UploadProgress
 * What an editor sees of a picked video's upload to the streaming host, in the main column under the
 * file: a progress bar, bytes sent of the total, speed and time left, Pause/Resume, and on failure the
 * host's reason with Retry. Pressing Save during the upload says the document is saved once it is done.
 */
import { useEffect, useState } from 'react'

import { formatBytes, formatDuration } from './HostDataSummary.js'
import { useStorageHostT } from './useStorageHostT.js'
import { findVideoUpload, onVideoUploadStarted, type VideoUpload, type VideoUploadState } from './videoUploads.js'

const buttonClass = 'btn btn--style-secondary btn--size-small'

/** The upload of the file in the form, once one started (the TUS field starts it). */
export function useVideoUploadOf(collectionSlug: string | undefined, file: unknown): undefined | VideoUpload {
  const find = () => (collectionSlug && file instanceof File ? findVideoUpload(collectionSlug, file) : undefined)
  const [upload, setUpload] = useState(find)
  useEffect(() => {
    setUpload(find())
    return onVideoUploadStarted(() => setUpload(find()))
    // `find` only reads its two inputs.
  }, [collectionSlug, file])
  return upload
}

/** Follows one upload's state. */
export function useVideoUploadState(upload: undefined | VideoUpload): undefined | VideoUploadState {
  const [state, setState] = useState(upload?.state)
  useEffect(() => {
    setState(upload?.state)
    return upload?.subscribe(setState)
  }, [upload])
  return state
}

export function UploadProgress({ upload }: { upload: VideoUpload }) {
  const { language, t } = useStorageHostT()
  const state = useVideoUploadState(upload) ?? upload.state
  const { bytesSent, bytesTotal, phase } = state
  const percent = bytesTotal > 0 ? Math.floor((bytesSent / bytesTotal) * 100) : 0
  const details = [t('uploadBytes', { sent: formatBytes(bytesSent, language), total: formatBytes(bytesTotal, language) })]
  if (phase === 'uploading' && state.speed !== undefined) details.push(t('uploadSpeed', { speed: formatBytes(state.speed, language) }))
  if (phase === 'uploading' && state.secondsLeft !== undefined) details.push(t('uploadTimeLeft', { time: formatDuration(state.secondsLeft) }))
  return (
    <div className="storage-host-upload" data-phase={phase} style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
      <div style={{ alignItems: 'center', display: 'flex', gap: 12 }}>
        <strong>{t('upload')}</strong>
        <span className="storage-host-upload__percent">{percent}%</span>
      </div>
      <progress aria-label={t('upload')} max={100} style={{ width: '100%' }} value={percent} />
      <p aria-live="polite" className="storage-host-upload__details field-description">
        {phase === 'authorizing' ? t('uploadAuthorizing') : details.join(' · ')}
        {phase === 'paused' && ` · ${t('uploadPaused')}`}
      </p>
      {phase === 'done' && !state.saveQueued && <p className="storage-host-upload__done">{t('uploadDone')}</p>}
      {state.saveQueued && phase !== 'done' && (
        <p className="storage-host-upload__queued" role="status">
          {t('uploadSaveQueued')}
        </p>
      )}
      {phase === 'error' && (
        <p className="storage-host-upload__error" role="alert" style={{ color: 'var(--theme-error-500)' }}>
          {t('uploadFailed', { message: state.error ?? '' })}
        </p>
      )}
      <div style={{ display: 'flex', gap: 8 }}>
        {phase === 'uploading' && (
          <button className={buttonClass} onClick={() => upload.pause()} type="button">
            {t('pause')}
          </button>
        )}
        {phase === 'paused' && (
          <button className={buttonClass} onClick={() => upload.resume()} type="button">
            {t('resume')}
          </button>
        )}
        {phase === 'error' && (
          <button className={buttonClass} onClick={() => upload.resume()} type="button">
            {t('retry')}
          </button>
        )}
      </div>
    </div>
  )
}
