'use client'
/**
 * @module client/HostDataSummary
 * The `hostData.stream.summary` ui field: what the streaming host holds for this document, read as a
 * summary (status badge, progress while encoding, duration, resolutions, size, links with a copy
 * button) instead of a column of disabled inputs. Live while the host encodes (liveVideo.ts).
 */
import { useState } from 'react'

import { isSettled, useLiveVideo } from './liveVideo.js'
import { StatusBadge } from './StatusBadge.js'
import { useStorageHostT } from './useStorageHostT.js'

/** 1536 → "1.5 KB" in the admin's language. */
export function formatBytes(bytes: number, language: string): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${new Intl.NumberFormat(language, { maximumFractionDigits: unit ? 1 : 0 }).format(value)} ${units[unit]}`
}

/** 75.4 → "1:15". */
export function formatDuration(seconds: number): string {
  const total = Math.round(seconds)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}

function CopyLink({ label, value }: { label: string; value: string }) {
  const { t } = useStorageHostT()
  const [copied, setCopied] = useState(false)
  const copy = () => {
    void navigator.clipboard?.writeText(value).then(() => {
      setCopied(true)
      setTimeout(() => setCopied(false), 1500)
    })
  }
  return (
    <li style={{ alignItems: 'center', display: 'flex', gap: 8, justifyContent: 'space-between' }}>
      <a href={value} rel="noreferrer" style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} target="_blank" title={value}>
        {label}
      </a>
      <button className="btn btn--style-secondary btn--size-small" onClick={copy} style={{ margin: 0 }} type="button">
        {copied ? t('copied') : t('copy')}
      </button>
    </li>
  )
}

const row = { display: 'flex', gap: 8, justifyContent: 'space-between', margin: '4px 0' } as const

export function HostDataSummary() {
  const { language, t } = useStorageHostT()
  const { doc, duration } = useLiveVideo()
  const stream = doc?.hostData?.stream
  if (!stream?.videoId) return null
  const resolutions = stream.availableResolutions
    ? stream.availableResolutions
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean)
    : (stream.resolutions ?? []).map((r) => r.resolution)
  const links = [
    ...(stream.playlistUrl ? [{ label: t('playlist'), value: stream.playlistUrl }] : []),
    ...(stream.thumbnailUrl && stream.status === 'finished' ? [{ label: t('thumbnail'), value: stream.thumbnailUrl }] : []),
    ...(stream.resolutions ?? []).map((r) => ({ label: `MP4 ${r.resolution}`, value: r.url })),
  ]
  return (
    <div className="storage-host-summary" data-status={stream.status ?? ''} style={{ marginBottom: 'var(--base)' }}>
      <div style={row}>
        <span>{t('status')}</span>
        <StatusBadge status={stream.status ?? 'uploading'} />
      </div>
      {!isSettled(stream.status) && typeof stream.encodeProgress === 'number' && (
        <div style={row}>
          <span>{t('progress')}</span>
          <span className="storage-host-summary__progress">{Math.round(stream.encodeProgress)}%</span>
        </div>
      )}
      {duration !== undefined && (
        <div style={row}>
          <span>{t('duration')}</span>
          <span className="storage-host-summary__duration">{formatDuration(duration)}</span>
        </div>
      )}
      {resolutions.length > 0 && (
        <div style={row}>
          <span>{t('resolutions')}</span>
          <span className="storage-host-summary__resolutions">{resolutions.join(', ')}</span>
        </div>
      )}
      {typeof doc?.filesize === 'number' && doc.filesize > 0 && (
        <div style={row}>
          <span>{t('size')}</span>
          <span>{formatBytes(doc.filesize, language)}</span>
        </div>
      )}
      <div style={row}>
        <span>{t('videoId')}</span>
        <code style={{ fontSize: 11, overflow: 'hidden', textOverflow: 'ellipsis' }} title={stream.videoId}>
          {stream.videoId}
        </code>
      </div>
      {links.length > 0 && (
        <>
          <div style={{ ...row, marginTop: 8 }}>
            <strong>{t('links')}</strong>
          </div>
          <ul style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {links.map((l) => (
              <CopyLink key={l.value} label={l.label} value={l.value} />
            ))}
          </ul>
        </>
      )}
    </div>
  )
}
