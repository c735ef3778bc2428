/**
 * @module translations/de
 * German strings of the plugin's admin components.
 */
import type { StorageHostTranslations } from './en.js'

export const de: StorageHostTranslations = {
  copied: 'Kopiert',
  copy: 'Kopieren',
  duration: 'Dauer',
  encodeFailed: 'Der Streaming-Host konnte dieses Video nicht kodieren.',
  encoding: 'Kodierung',
  hostData: 'Streaming-Host',
  links: 'Links',
  noPlaybackUrl: 'Keine Wiedergabe-URL (eventuell fehlt der Zugriff auf dieses Video).',
  player: 'Video',
  playerUnavailable: 'Das Video kann hier nicht abgespielt werden.',
  playlist: 'HLS-Playlist',
  progress: 'Fortschritt',
  quality: 'Qualität',
  resolutions: 'Auflösungen',
  retryHint: 'Datei erneut (oder eine andere) wählen, hochladen und das Dokument speichern.',
  retryUpload: 'Upload wiederholen',
  size: 'Größe',
  status: 'Status',
  'status.encoding': 'Wird kodiert',
  'status.failed': 'Kodierung fehlgeschlagen',
  'status.finished': 'Bereit',
  'status.playable': 'Abspielbar',
  'status.processing': 'Wird verarbeitet',
  'status.queued': 'In der Warteschlange',
  'status.uploadFailed': 'Upload fehlgeschlagen',
  'status.uploadStarted': 'Wird hochgeladen',
  'status.uploaded': 'Hochgeladen',
  'status.uploading': 'Wartet auf den Upload',
  thumbnail: 'Vorschaubild',
  videoId: 'Video-ID',
  waitingForThumbnail: 'Das Vorschaubild erscheint nach der Kodierung.',
}
