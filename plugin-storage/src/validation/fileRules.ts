/**
 * @module validation/fileRules
 * The MIME and file-name rules every upload path shares: tus-auth, the client-upload signing of both
 * generations (`storage/upload`, `upload-instructions`) and the checks used where the core has none
 * (`payload/fallbacks.ts`). One set of rules, so a file refused on one path is refused on all of them.
 * They follow Payload 3.90's own rules, plus the restricted list below.
 */
import { validateMimeType } from 'payload/shared'

import { HttpError } from '../errors.js'

/** `type/subtype` of RFC 9110 tokens (parameters are checked apart). */
/** The one message for a file of no bytes, on every path (tus-auth, client-upload signing, a save with a file). */
export const EMPTY_FILE_MESSAGE = 'The file is empty.'

export const MIME_ESSENCE_PATTERN = /^[!#$%&'*+.^`|~\w-]+\/[!#$%&'*+.^`|~\w-]+$/

/** `type/subtype`, lower case, without parameters. */
export const mimeEssence = (mimeType: string): string => (mimeType.split(';', 1)[0] ?? '').trim().toLowerCase()

/**
 * The last extension of a file name, lower case ('' without a dot), after NFKC normalisation: full-width
 * and other compatibility forms (`clip.ｈｔｍｌ`) fold to the plain letters a browser or CDN may treat
 * them as, so a confusable spelling cannot pass the restricted list.
 */
export const extensionOf = (name: string): string => {
  const normalised = name.normalize('NFKC')
  return normalised.includes('.') ? (normalised.split('.').pop() ?? '').toLowerCase() : ''
}

export const isSvgMimeType = (mimeType: string): boolean => mimeEssence(mimeType) === 'image/svg+xml'

export const isXmlMimeType = (mimeType: string): boolean => {
  const essence = mimeEssence(mimeType)
  return essence === 'application/xml' || essence === 'text/xml' || essence.endsWith('+xml')
}

/** SVG or XML by type or by extension: such files need the server's own checks and are refused here. */
export const isSvgOrXml = (filename: string, mimeType: string): boolean => {
  const ext = extensionOf(filename)
  return isSvgMimeType(mimeType) || isXmlMimeType(mimeType) || ext === 'svg' || ext === 'svgz' || ext === 'xml'
}

/**
 * Executables, scripts and active web content a media host must never receive by a direct upload,
 * whatever the collection allows (Payload's own restricted list, `checkFileRestrictions`, plus web pages
 * a pull zone would render: `.mht`, `.xht`). Files that must be kept anyway go through the CMS itself.
 */
const RESTRICTED_EXTENSIONS = new Set([
  'action',
  'app',
  'asp',
  'aspx',
  'bat',
  'cmd',
  'com',
  'command',
  'cpl',
  'deb',
  'desktop',
  'dll',
  'dmg',
  'ear',
  'exe',
  'hta',
  'htm',
  'html',
  'jar',
  'js',
  'jse',
  'jsp',
  'lnk',
  'mht',
  'mhtml',
  'mjs',
  'msi',
  'php',
  'phtml',
  'pkg',
  'pl',
  'ps1',
  'psc1',
  'psd1',
  'psh',
  'psm1',
  'py',
  'rb',
  'reg',
  'rpm',
  'scr',
  'sh',
  'shtml',
  'url',
  'vbe',
  'vbs',
  'war',
  'workflow',
  'ws',
  'wsc',
  'wsf',
  'wsh',
  'xht',
  'xhtml',
])
const RESTRICTED_MIME_TYPES = new Set([
  'application/ecmascript',
  'application/java-archive',
  'application/javascript',
  'application/vnd.microsoft.portable-executable',
  'application/x-apple-diskimage',
  'application/x-asp',
  'application/x-debian-package',
  'application/x-executable',
  'application/x-hta',
  'application/x-httpd-php',
  'application/x-jsp',
  'application/x-ms-dos-executable',
  'application/x-msdos-program',
  'application/x-msdownload',
  'application/x-msi',
  'application/x-powershell',
  'application/x-redhat-package-manager',
  'application/x-sh',
  'application/x-vbscript',
  'application/xhtml+xml',
  'message/rfc822',
  'multipart/related',
  'text/ecmascript',
  'text/html',
  'text/javascript',
  'text/x-python',
  'text/x-ruby',
  'text/x-perl',
])

export interface AcceptedTypeRules {
  /** The collection's own `upload.mimeTypes`, when set. */
  collectionMimeTypes?: string[]
  /** Patterns the target host accepts (`stream.mimeTypes` for the streaming host). */
  hostMimeTypes?: string[]
}

/**
 * The 415 rows shared by tus-auth and client uploads: a restricted extension or type, a type outside
 * the host's or the collection's `mimeTypes`. The name is the sanitized one the file will be stored as.
 */
export function assertAcceptedType(filename: string, mimeType: string, rules: AcceptedTypeRules): void {
  const ext = extensionOf(filename)
  const mime = mimeEssence(mimeType)
  if (RESTRICTED_EXTENSIONS.has(ext)) throw new HttpError(415, `Files of type .${ext} are restricted.`)
  if (RESTRICTED_MIME_TYPES.has(mime)) throw new HttpError(415, `Files of type ${mime} are restricted.`)
  if (rules.hostMimeTypes && !validateMimeType(mime, rules.hostMimeTypes)) throw new HttpError(415, `The streaming host does not accept ${mime} files.`)
  if (rules.collectionMimeTypes?.length && !validateMimeType(mime, rules.collectionMimeTypes)) {
    throw new HttpError(415, `The collection does not accept ${mime} files.`)
  }
}
