'use client'
/**
 * @module client/VideoPlayer
 * Plays a finished video in the admin. URLs come from `GET /api/{slug}/{id}/playback` (signed when the
 * pull zone uses token auth; 403 without read access). HLS goes through hls.js, loaded with a dynamic
 * `import()` so only this view pays for it (native HLS where hls.js cannot run); when HLS fails or does
 * not exist, the MP4 renditions play instead. With several sources a picker switches between them,
 * keeping the position. Seeking is the browser's own (range requests on the MP4 files). A video that
 * cannot play (HLS fails with no MP4 to fall back on, a media error, no source at all) says so on the
 * page with the reason, rather than leaving a dead player.
 */
import { useEffect, useRef, useState } from 'react'

import type { PlaybackUrls as PlaybackResponse } from '../types.js'
import { reportDuration } from './liveVideo.js'
import { useStorageHostT } from './useStorageHostT.js'

export interface VideoPlayerProps {
  apiUrl: string
  collectionSlug: string
  id: number | string
  /** The live document's URL (duration is reported to it). */
  documentUrl: string
}

/** `hls` or an MP4 resolution such as `720p`. */
type Source = string
const HLS: Source = 'hls'

type Load = { state: 'loading' } | { state: 'ready'; playback: PlaybackResponse } | { state: 'error'; status: number }

/** Highest MP4 rendition first. */
function byHeightDesc(a: { resolution: string }, b: { resolution: string }): number {
  return Number.parseInt(b.resolution, 10) - Number.parseInt(a.resolution, 10)
}

export function VideoPlayer({ apiUrl, collectionSlug, documentUrl, id }: VideoPlayerProps) {
  const { t } = useStorageHostT()
  const video = useRef<HTMLVideoElement>(null)
  /**
   * Position and play state of the source being replaced, taken before it is torn down: hls.js's
   * `destroy()` empties the element (time 0, paused), so reading them afterwards would lose both.
   */
  const handOver = useRef<{ time: number; playing: boolean } | undefined>(undefined)
  const [load, setLoad] = useState<Load>({ state: 'loading' })
  const [source, setSource] = useState<Source | undefined>()
  const [hlsFailed, setHlsFailed] = useState(false)
  const [playing, setPlaying] = useState(false)
  /** Why nothing can play, shown on the page. */
  const [failure, setFailure] = useState<string | undefined>()

  useEffect(() => {
    let cancelled = false
    setLoad({ state: 'loading' })
    fetch(`${apiUrl}/${collectionSlug}/${encodeURIComponent(String(id))}/playback`, { cache: 'no-store', credentials: 'include' })
      .then(async (res) => {
        if (cancelled) return
        if (!res.ok) return setLoad({ state: 'error', status: res.status })
        const playback = (await res.json()) as PlaybackResponse
        setLoad({ playback, state: 'ready' })
        const first = playback.hls ? HLS : [...playback.mp4].sort(byHeightDesc)[0]?.resolution
        setSource(first)
        setFailure(first ? undefined : 'the host has no HLS playlist or MP4 file for it')
      })
      .catch(() => !cancelled && setLoad({ state: 'error', status: 0 }))
    return () => {
      cancelled = true
    }
  }, [apiUrl, collectionSlug, id])

  const playback = load.state === 'ready' ? load.playback : undefined
  const mp4 = playback ? [...playback.mp4].sort(byHeightDesc) : []

  // Attach the chosen source; a switch resumes at the same position (and keeps playing if it was).
  useEffect(() => {
    const element = video.current
    if (!element || !playback || !source) return undefined
    const carried = handOver.current ?? { playing: !element.paused, time: element.currentTime }
    handOver.current = undefined
    const resumeAt = carried.time
    const wasPlaying = carried.playing
    const resume = () => {
      if (resumeAt > 0) element.currentTime = resumeAt
      if (wasPlaying) void element.play().catch(() => undefined)
    }
    element.addEventListener('loadedmetadata', resume, { once: true })
    const fallBack = (reason: string) => {
      setHlsFailed(true)
      const next = mp4[0]?.resolution
      if (next) setSource(next)
      else setFailure(reason)
    }
    const onMediaError = () => {
      const error = element.error
      if (!error) return
      if (source === HLS) fallBack(`media error ${error.code}${error.message ? ` (${error.message})` : ''}`)
      else setFailure(`MP4 ${source}: media error ${error.code}${error.message ? ` (${error.message})` : ''}`)
    }
    let destroy: (() => void) | undefined
    let cancelled = false
    if (source === HLS && playback.hls) {
      const hlsUrl = playback.hls
      void import('hls.js')
        .then(({ default: Hls }) => {
          if (cancelled) return
          if (Hls.isSupported()) {
            const hls = new Hls()
            destroy = () => hls.destroy()
            let recovered = false
            hls.on(Hls.Events.ERROR, (_event, data) => {
              if (!data.fatal) return
              // A decoding hiccup is worth one recovery attempt (hls.js's documented pattern).
              if (data.type === Hls.ErrorTypes.MEDIA_ERROR && !recovered) {
                recovered = true
                hls.recoverMediaError()
                return
              }
              hls.destroy()
              destroy = undefined
              const status = data.response?.code ? ` (HTTP ${data.response.code})` : ''
              fallBack(`HLS ${data.details}${status}`)
            })
            hls.loadSource(hlsUrl)
            hls.attachMedia(element)
          } else if (element.canPlayType('application/vnd.apple.mpegurl')) {
            element.src = hlsUrl
          } else {
            fallBack('this browser plays no HLS')
          }
        })
        .catch((err: Error) => fallBack(`hls.js did not load (${err.message})`))
    } else {
      const rendition = mp4.find((r) => r.resolution === source)
      if (rendition) element.src = rendition.url
    }
    element.addEventListener('error', onMediaError)
    return () => {
      handOver.current = { playing: !element.paused, time: element.currentTime }
      cancelled = true
      element.removeEventListener('loadedmetadata', resume)
      element.removeEventListener('error', onMediaError)
      destroy?.()
    }
    // `mp4` derives from `playback`, so it is not a dependency of its own.
  }, [playback, source])

  if (load.state === 'loading') return <div className="storage-host-player storage-host-player--loading" />
  if (load.state === 'error') {
    return (
      <p className="storage-host-player storage-host-player--error" data-status={load.status} role="alert">
        {load.status === 403 || load.status === 401 ? t('noPlaybackUrl') : t('playerUnavailable')}
      </p>
    )
  }
  const options: Array<{ label: string; value: Source }> = [
    ...(playback?.hls && !hlsFailed ? [{ label: 'HLS (auto)', value: HLS }] : []),
    ...mp4.map((r) => ({ label: `MP4 ${r.resolution}`, value: r.resolution })),
  ]
  return (
    <div className="storage-host-player" data-playing={playing} data-source={source ?? ''} style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
      <video
        controls
        onDurationChange={(e) => reportDuration(documentUrl, e.currentTarget.duration)}
        onPause={() => setPlaying(false)}
        onPlaying={() => setPlaying(true)}
        playsInline
        poster={playback?.thumbnail}
        preload="metadata"
        ref={video}
        style={{ background: '#000', borderRadius: 4, maxHeight: 480, width: '100%' }}
      />
      {failure && (
        <p className="storage-host-player__failure" role="alert" style={{ color: 'var(--theme-error-500)', margin: 0 }}>
          {t('playerFailed', { reason: failure })}
        </p>
      )}
      {options.length > 1 && (
        <label style={{ alignItems: 'center', display: 'flex', gap: 8 }}>
          {t('quality')}
          <select
            className="storage-host-player__quality"
            onChange={(e) => {
              setFailure(undefined)
              setSource(e.target.value)
            }}
            value={source}
          >
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  )
}
