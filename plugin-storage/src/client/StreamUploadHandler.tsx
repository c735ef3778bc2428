'use client'
/**
 * @module client/StreamUploadHandler
 * Provider that lets Payload's form save a stream document by the receipt of the file's TUS upload (no
 * bytes), under the sanitized unique file name. The upload started when the file was put in the form
 * (client/TusUploadField.tsx); a save waits for it, and a failed upload fails the save with its reason.
 * Feature-detected per generation:
 * - 3.x: registers an upload handler (`setUploadHandler`) the form calls on save;
 * - 4.x: the form asks `upload-instructions`, gets the plugin's `dispatch` instruction and fires a
 *   `payload:upload:storage-host-tus` window event; this provider answers it.
 */
import { useUploadHandlers } from '@payloadcms/ui'
import { type ReactNode, useEffect } from 'react'

import { TUS_UPLOAD_INSTRUCTION } from '../constants.js'
import { findVideoUpload, type UploadedVideo } from './videoUploads.js'

/** The receipt of the file's upload, once the upload is done; its error message otherwise. */
async function receiptOf(collectionSlug: string, file: File): Promise<UploadedVideo> {
  const upload = findVideoUpload(collectionSlug, file)
  if (!upload) throw new Error(`The upload of ${file.name} to the streaming host has not started: pick the file again.`)
  const uploaded = await upload.whenDone().catch((err: Error) => {
    throw new Error(`The upload of ${file.name} to the streaming host failed: ${err.message}`)
  })
  upload.handedOut = true
  return uploaded
}

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
  // Cast: 3.x and 4.x cores answer different shapes here; the installed typings know one of them.
  const handlers = useUploadHandlers() as unknown as Partial<Handlers3>
  const setUploadHandler = handlers.setUploadHandler
  useEffect(() => {
    if (setUploadHandler) {
      setUploadHandler({
        collectionSlug,
        handler: async ({ file, updateFilename }) => {
          const uploaded = await receiptOf(collectionSlug, file)
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
      receiptOf(collectionSlug, detail.file).then(
        (uploaded) => {
          detail.updateFilename(uploaded.filename)
          detail.resolve({ signedReceipt: uploaded.signedReceipt })
        },
        (err: Error) => detail.reject(err),
      )
    }
    const name = `payload:upload:${TUS_UPLOAD_INSTRUCTION}`
    window.addEventListener(name, onDispatch)
    return () => window.removeEventListener(name, onDispatch)
  }, [collectionSlug, setUploadHandler])
  return <>{children}</>
}
