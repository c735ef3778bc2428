/**
 * @module validation/fileRules
 * The MIME and file-name rules both upload paths share: tus-auth's checks and the client-upload checks
 * used where the core has none (`payload/fallbacks.ts`). They follow Payload 3.90's own rules.
 */

/** `type/subtype` of RFC 9110 tokens (parameters are checked apart). */
export const MIME_ESSENCE_PATTERN = /^[!#$%&'*+.^`|~\w-]+\/[!#$%&'*+.^`|~\w-]+$/

/** `type/subtype`, lower case, without parameters. */
export const mimeEssence = (mimeType: string): string => (mimeType.split(';', 1)[0] ?? '').trim().toLowerCase()

/** The last extension of a file name, lower case ('' without a dot). */
export const extensionOf = (name: string): string => (name.includes('.') ? (name.split('.').pop() ?? '').toLowerCase() : '')

export const isSvgMimeType = (mimeType: string): boolean => mimeEssence(mimeType) === 'image/svg+xml'

export const isXmlMimeType = (mimeType: string): boolean => {
  const essence = mimeEssence(mimeType)
  return essence === 'application/xml' || essence === 'text/xml' || essence.endsWith('+xml')
}

/** SVG or XML by type or by extension: such files need the server's own checks and are refused here. */
export const isSvgOrXml = (filename: string, mimeType: string): boolean => {
  const ext = extensionOf(filename)
  return isSvgMimeType(mimeType) || isXmlMimeType(mimeType) || ext === 'svg' || ext === 'xml'
}
