'use client'
/**
 * @module client/VideoPanel
 * The `ui` field in the main column of a stream collection's edit view: the upload of a video just put
 * in the form (bytes, speed, time left), the live encoding state while the host works on the video, the
 * player once it is finished. Nothing for a document without a video and no file picked. When the
 * host's thumbnail appears, the edit view's own upload preview gets it too (it shows the document data
 * of the page load otherwise).
 */
import { useDocumentInfo, useField } from '@payloadcms/ui'
import { useEffect } from 'react'

import { EncodingStatus } from './EncodingStatus.js'
import { useLiveVideo } from './liveVideo.js'
import { UploadProgress, useVideoUploadOf } from './UploadProgress.js'
import { useStorageHostT } from './useStorageHostT.js'
import { VideoPlayer } from './VideoPlayer.js'

export function VideoPanel() {
  const { t } = useStorageHostT()
  const { apiUrl, collectionSlug, doc, id, url } = useLiveVideo()
  const { data, setData } = useDocumentInfo()
  const { value: file } = useField<File | null>({ path: 'file' })
  const upload = useVideoUploadOf(collectionSlug, file)
  const stream = doc?.hostData?.stream
  const thumbnailURL = doc?.thumbnailURL
  useEffect(() => {
    if (thumbnailURL && data && data.thumbnailURL !== thumbnailURL) setData({ ...data, thumbnailURL })
  }, [data, setData, thumbnailURL])
  if (upload) {
    return (
      <div className="field-type storage-host-video-panel" style={{ marginBottom: 'calc(var(--base) * 1.5)' }}>
        <UploadProgress upload={upload} />
      </div>
    )
  }
  if (!url || !collectionSlug || id === undefined || !stream?.videoId) return null
  return (
    <div className="field-type storage-host-video-panel" style={{ marginBottom: 'calc(var(--base) * 1.5)' }}>
      <label className="field-label">{t('player')}</label>
      {stream.status === 'finished' ? (
        <VideoPlayer apiUrl={apiUrl} collectionSlug={collectionSlug} documentUrl={url} id={id} key={stream.videoId} />
      ) : (
        <EncodingStatus stream={stream} thumbnailURL={doc?.thumbnailURL} />
      )}
    </div>
  )
}
