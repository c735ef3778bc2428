'use client'
/**
 * @module client/useStorageHostT
 * The plugin's strings through Payload's i18n (`useTranslation()`), keyed by the English file's keys so a
 * typo is a type error. A missing translation falls back to Payload's own fallback language.
 */
import { useTranslation } from '@payloadcms/ui'
import { useCallback } from 'react'

import { PLUGIN_KEY } from '../constants.js'
import type { StorageHostTranslations } from '../translations/en.js'

export type StorageHostKey = keyof StorageHostTranslations

/** `t(key, vars?)` for the plugin's namespace (`{{name}}` placeholders filled from `vars`), plus the active language (for number formatting). */
export function useStorageHostT(): { language: string; t: (key: StorageHostKey, vars?: Record<string, string>) => string } {
  const { i18n, t } = useTranslation()
  // Cast: Payload types `t` with its own keys only; a plugin namespace key cannot be written in that type.
  const translate = useCallback(
    (key: StorageHostKey, vars?: Record<string, string>) => (t as unknown as (k: string, v?: Record<string, string>) => string)(`${PLUGIN_KEY}:${key}`, vars),
    [t],
  )
  return { language: i18n.language, t: translate }
}
