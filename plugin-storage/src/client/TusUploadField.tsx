'use client'
/**
 * @module client/TusUploadField
 * Field component of `hostData.stream.videoToken` on stream collections. It shows nothing itself (the
 * video panel in the main column shows the upload, client/UploadProgress.tsx); it drives the upload:
 * - a video put in the form (picked, dropped, or fetched with "Paste URL") starts its TUS upload to
 *   the streaming host at once; the bytes never pass through the CMS;
 * - when the upload is done, its `videoToken` goes into the form, so saving binds the video;
 * - Save pressed during the upload is held (Payload's form reads its fields before it calls the upload
 *   handler, so the token must be in the form first) and done as soon as the upload is; a failed upload
 *   cancels the held save and says why on the page.
 */
import { useConfig, useField, useForm } from '@payloadcms/ui'
import { useEffect, useState } from 'react'

import { useVideoUploadOf, useVideoUploadState } from './UploadProgress.js'
import { startVideoUpload } from './videoUploads.js'

export interface TusUploadFieldProps {
  collectionSlug: string
  /** The host's TUS endpoint (not a secret; the signature comes from tus-auth). */
  tusEndpoint: string
  path: string
}

/** Payload's Save button (`FormSubmit` with `buttonId="action-save"`); Ctrl/Cmd+S clicks it too. */
const SAVE_BUTTON = '#action-save'

export function TusUploadField({ collectionSlug, path, tusEndpoint }: TusUploadFieldProps) {
  const { config } = useConfig()
  const apiUrl = `${config.serverURL ?? ''}${config.routes.api}`
  const { value: file } = useField<File | null>({ path: 'file' })
  const { setValue: setToken, value: token } = useField<string | null>({ path })
  const { submit } = useForm()
  const upload = useVideoUploadOf(collectionSlug, file)
  const state = useVideoUploadState(upload)
  const [held, setHeld] = useState(false)

  useEffect(() => {
    if (file instanceof File) startVideoUpload({ apiUrl, collectionSlug, tusEndpoint }, file)
  }, [apiUrl, collectionSlug, file, tusEndpoint])

  const videoToken = state?.phase === 'done' ? upload?.result?.videoToken : undefined
  useEffect(() => {
    if (videoToken && token !== videoToken) setToken(videoToken)
  }, [setToken, token, videoToken])

  // Hold Save while the bytes are still on their way.
  const uploading = Boolean(upload && state && state.phase !== 'done')
  useEffect(() => {
    if (!upload || !uploading) return undefined
    const onClick = (event: MouseEvent) => {
      if (!(event.target instanceof Element) || !event.target.closest(SAVE_BUTTON)) return
      event.preventDefault()
      event.stopImmediatePropagation()
      if (upload.state.phase === 'error') upload.resume()
      upload.queueSave(true)
      setHeld(true)
    }
    // Capture on the document runs before React's own listener on its root.
    document.addEventListener('click', onClick, true)
    return () => document.removeEventListener('click', onClick, true)
  }, [upload, uploading])

  // The held save, once the token is in the form; a failed upload drops it (its message stays on the page).
  useEffect(() => {
    if (!held || !upload || !state) return
    if (state.phase === 'error' || !state.saveQueued) {
      setHeld(false)
      return
    }
    if (state.phase === 'done' && videoToken && token === videoToken) {
      setHeld(false)
      upload.queueSave(false)
      void submit()
    }
  }, [held, state, submit, token, upload, videoToken])

  return null
}
