'use client'
/**
 * @module client/liveVideo
 * The video document of the edit view, kept current while the host encodes it: the REST document
 * (`GET /api/{slug}/{id}?depth=0`, the webhook keeps its `hostData` up to date) is fetched on mount, after
 * each save, and every 2 s while the status is not settled (finished, failed, upload failed). One poller
 * per document however many components show it (the video panel and the sidebar summary).
 */
import { useConfig, useDocumentInfo } from '@payloadcms/ui'
import { useEffect, useState } from 'react'

import type { StreamHostData } from '../types.js'

/** What the admin components read of a video document. */
export interface VideoDocument {
  id: number | string
  filename?: null | string
  filesize?: null | number
  mimeType?: null | string
  thumbnailURL?: null | string
  hostData?: null | { stream?: null | StreamHostData }
}

/** What the live view knows: the document and, once the player loaded it, the media's duration. */
export interface LiveVideo {
  doc?: VideoDocument
  /** Seconds, reported by the player (the host's video object is not stored on the document). */
  duration?: number
}

export const POLL_INTERVAL_MS = 2000
const SETTLED = new Set(['finished', 'failed', 'uploadFailed'])
export const FAILED_STATUSES = new Set(['failed', 'uploadFailed'])

/** No more changes expected from the host (or no video bound yet: nothing to wait for). */
export function isSettled(status: null | string | undefined): boolean {
  return !status || SETTLED.has(status)
}

interface Entry {
  state: LiveVideo
  listeners: Set<(state: LiveVideo) => void>
  timer?: ReturnType<typeof setTimeout>
  loading: boolean
}

const entries = new Map<string, Entry>()

function publish(entry: Entry, patch: Partial<LiveVideo>): void {
  entry.state = { ...entry.state, ...patch }
  for (const listener of entry.listeners) listener(entry.state)
}

async function load(url: string, entry: Entry): Promise<void> {
  if (entry.loading) return
  clearTimeout(entry.timer)
  entry.loading = true
  let failed = false
  try {
    const res = await fetch(url, { cache: 'no-store', credentials: 'include' })
    if (res.ok) publish(entry, { doc: (await res.json()) as VideoDocument })
    else failed = res.status >= 500
  } catch {
    failed = true // network hiccup: keep polling
  } finally {
    entry.loading = false
  }
  if (entry.listeners.size && (failed || !isSettled(entry.state.doc?.hostData?.stream?.status))) {
    entry.timer = setTimeout(() => void load(url, entry), POLL_INTERVAL_MS)
  }
}

/** Reports the media's duration (the player calls it on `loadedmetadata`). */
export function reportDuration(url: string, duration: number): void {
  const entry = entries.get(url)
  if (entry && Number.isFinite(duration) && entry.state.duration !== duration) publish(entry, { duration })
}

/** URL of the document in the REST API, or undefined outside a saved document's edit view. */
export function useDocumentUrl(): { apiUrl: string; collectionSlug?: string; id?: number | string; url?: string } {
  const { config } = useConfig()
  const { collectionSlug, id } = useDocumentInfo()
  const apiUrl = `${config.serverURL ?? ''}${config.routes.api}`
  const url = collectionSlug && id !== undefined && id !== null ? `${apiUrl}/${collectionSlug}/${encodeURIComponent(String(id))}?depth=0` : undefined
  return { apiUrl, collectionSlug, id, url }
}

/** The live document of the current edit view (empty on a create view). */
export function useLiveVideo(): LiveVideo & ReturnType<typeof useDocumentUrl> {
  const location = useDocumentUrl()
  const { lastUpdateTime } = useDocumentInfo()
  const { url } = location
  const [state, setState] = useState<LiveVideo>(() => (url ? (entries.get(url)?.state ?? {}) : {}))
  useEffect(() => {
    if (!url) return undefined
    let entry = entries.get(url)
    if (!entry) entries.set(url, (entry = { listeners: new Set(), loading: false, state: {} }))
    const current = entry
    current.listeners.add(setState)
    setState(current.state)
    void load(url, current)
    return () => {
      current.listeners.delete(setState)
      if (!current.listeners.size) {
        clearTimeout(current.timer)
        entries.delete(url)
      }
    }
    // A save (lastUpdateTime) may bind a new video: read the document again and poll if needed.
  }, [url, lastUpdateTime])
  return { ...location, ...state }
}
