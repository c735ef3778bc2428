'use client'
/**
 * @module client/StreamUploadHandler
 * Provider registering Payload's upload handler for a stream collection: on save, the form submits the
 * file by the receipt the TUS field obtained (no bytes), under the sanitized unique file name.
 */
import { useUploadHandlers } from '@payloadcms/ui'
import { type ReactNode, useEffect } from 'react'

import { uploadedVideos } from './uploadedVideos.js'

export function StreamUploadHandler({ children, collectionSlug }: { children?: ReactNode; collectionSlug: string }) {
  const { setUploadHandler } = useUploadHandlers()
  useEffect(() => {
    setUploadHandler({
      collectionSlug,
      handler: async ({ file, updateFilename }) => {
        const uploaded = uploadedVideos.get(file)
        if (!uploaded) throw new Error('Upload the video to the streaming host first (button under the file).')
        updateFilename(uploaded.filename)
        return { signedReceipt: uploaded.signedReceipt }
      },
    })
  }, [collectionSlug, setUploadHandler])
  return <>{children}</>
}
