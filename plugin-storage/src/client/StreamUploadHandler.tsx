'use client'
/**
 * @module client/StreamUploadHandler
 * Provider that lets Payload's form save a stream document by the receipt the TUS field obtained (no
 * bytes), under the sanitized unique file name. Feature-detected per generation:
 * - 3.x: registers an upload handler (`setUploadHandler`) the form calls on save;
 * - 4.x: the form asks `upload-instructions`, gets the plugin's `dispatch` instruction and fires a
 *   `payload:upload:storage-host-tus` window event; this provider answers it.
 */
import { useUploadHandlers } from '@payloadcms/ui'
import { type ReactNode, useEffect } from 'react'

import { TUS_UPLOAD_INSTRUCTION } from '../constants.js'
import { uploadedVideos } from './uploadedVideos.js'

const NOT_UPLOADED = 'Upload the video to the streaming host first (button under the file).'

/** `detail` of the 4.x admin's dispatch event. */
interface DispatchDetail {
  collectionSlug: string
  file: File
  resolve: (uploadReference: Record<string, unknown>) => void
  reject: (err: Error) => void
  updateFilename: (filename: string) => void
}

type Handlers3 = {
  setUploadHandler: (args: { collectionSlug: string; handler: (args: { file: File; updateFilename: (name: string) => void }) => Promise<unknown> }) => unknown
}

export function StreamUploadHandler({ children, collectionSlug }: { children?: ReactNode; collectionSlug: string }) {
  const handlers = useUploadHandlers() as unknown as Partial<Handlers3>
  const setUploadHandler = handlers.setUploadHandler
  useEffect(() => {
    if (setUploadHandler) {
      setUploadHandler({
        collectionSlug,
        handler: async ({ file, updateFilename }) => {
          const uploaded = uploadedVideos.get(file)
          if (!uploaded) throw new Error(NOT_UPLOADED)
          updateFilename(uploaded.filename)
          return { signedReceipt: uploaded.signedReceipt }
        },
      })
      return undefined
    }
    const onDispatch = (event: Event) => {
      const detail = (event as CustomEvent<DispatchDetail>).detail
      if (detail?.collectionSlug !== collectionSlug) return
      // Cancelling tells the admin that someone handles this instruction.
      event.preventDefault()
      const uploaded = uploadedVideos.get(detail.file)
      if (!uploaded) return detail.reject(new Error(NOT_UPLOADED))
      detail.updateFilename(uploaded.filename)
      detail.resolve({ signedReceipt: uploaded.signedReceipt })
    }
    const name = `payload:upload:${TUS_UPLOAD_INSTRUCTION}`
    window.addEventListener(name, onDispatch)
    return () => window.removeEventListener(name, onDispatch)
  }, [collectionSlug, setUploadHandler])
  return <>{children}</>
}
