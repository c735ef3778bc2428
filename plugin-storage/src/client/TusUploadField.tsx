'use client'
/**
 * @module client/TusUploadField
 * Field component of `hostData.stream.videoToken` on stream collections: uploads the picked video
 * straight to the streaming host with tus-js-client (progress, pause/resume, retry with backoff), then
 * puts the `videoToken` into the form so saving binds the video to the document. The bytes never pass
 * through the CMS.
 */
import { useConfig, useField } from '@payloadcms/ui'
import { useCallback, useRef, useState } from 'react'
import { Upload } from 'tus-js-client'

import type { TusAuthResponse } from '../types.js'
import { requestTusAuth } from './tusAuthClient.js'
import { uploadedVideos } from './uploadedVideos.js'

export interface TusUploadFieldProps {
  collectionSlug: string
  /** The host's TUS endpoint (not a secret; the signature comes from tus-auth). */
  tusEndpoint: string
  path: string
}

type Phase = 'idle' | 'authorizing' | 'uploading' | 'paused' | 'error' | 'done'

const RETRY_DELAYS = [0, 3000, 5000, 10000, 20000, 60000, 60000]

export function TusUploadField({ collectionSlug, path, tusEndpoint }: TusUploadFieldProps) {
  const { config } = useConfig()
  const apiUrl = `${config.serverURL ?? ''}${config.routes.api}`
  const { value: file } = useField<File | null>({ path: 'file' })
  const { setValue: setToken } = useField<string | null>({ path })
  const [phase, setPhase] = useState<Phase>('idle')
  const [percent, setPercent] = useState(0)
  const [message, setMessage] = useState('')
  const uploadRef = useRef<Upload | null>(null)
  const authRef = useRef<TusAuthResponse | null>(null)

  const run = useCallback(
    async (picked: File) => {
      setPhase('authorizing')
      setMessage('')
      try {
        const previous = authRef.current
        const auth = await requestTusAuth({
          apiUrl,
          collectionSlug,
          file: picked,
          resume: previous ? { videoId: previous.videoId, videoToken: previous.videoToken } : undefined,
        })
        authRef.current = auth
        const finish = () => {
          if (auth.filename && auth.signedReceipt)
            uploadedVideos.set(picked, { filename: auth.filename, signedReceipt: auth.signedReceipt, videoId: auth.videoId })
          setToken(auth.videoToken)
          setPercent(100)
          setPhase('done')
        }
        if (auth.type === 'uploaded') return finish()
        const upload = new Upload(picked, {
          endpoint: tusEndpoint,
          headers: {
            AuthorizationExpire: String(auth.authorizationExpire),
            AuthorizationSignature: auth.authorizationSignature ?? '',
            LibraryId: String(auth.libraryId),
            VideoId: auth.videoId,
          },
          metadata: { filetype: picked.type, title: picked.name, ...(auth.thumbnailTime !== undefined ? { thumbnailTime: String(auth.thumbnailTime) } : {}) },
          onError: (err) => {
            setPhase('error')
            setMessage(err.message)
          },
          onProgress: (sent, total) => setPercent(total ? Math.floor((sent / total) * 100) : 0),
          onSuccess: finish,
          retryDelays: RETRY_DELAYS,
          // Continue where the last attempt stopped (same video, fresh signature).
          uploadUrl: uploadRef.current?.url ?? undefined,
        })
        uploadRef.current = upload
        setPhase('uploading')
        upload.start()
      } catch (err) {
        setPhase('error')
        setMessage((err as Error).message)
      }
    },
    [apiUrl, collectionSlug, setToken, tusEndpoint],
  )

  const pause = useCallback(() => {
    void uploadRef.current?.abort()
    setPhase('paused')
  }, [])

  if (!(file instanceof File)) return null
  const busy = phase === 'authorizing' || phase === 'uploading'
  return (
    <div className="field-type storage-host-tus" style={{ marginBottom: 'var(--base)' }}>
      <label className="field-label">Streaming host upload</label>
      <progress max={100} style={{ width: '100%' }} value={percent} />
      <div style={{ display: 'flex', gap: 8, marginTop: 8 }}>
        {phase === 'idle' && (
          <button className="btn btn--style-secondary btn--size-small" onClick={() => void run(file)} type="button">
            Upload {file.name}
          </button>
        )}
        {busy && (
          <button className="btn btn--style-secondary btn--size-small" onClick={pause} type="button">
            Pause
          </button>
        )}
        {phase === 'paused' && (
          <button className="btn btn--style-secondary btn--size-small" onClick={() => void run(file)} type="button">
            Resume
          </button>
        )}
        {phase === 'error' && (
          <button className="btn btn--style-secondary btn--size-small" onClick={() => void run(file)} type="button">
            Retry
          </button>
        )}
      </div>
      <p aria-live="polite" className="field-description">
        {phase === 'done' ? 'Uploaded. Save the document to attach the video.' : phase === 'error' ? `Upload failed: ${message}` : `${percent}%`}
      </p>
    </div>
  )
}
