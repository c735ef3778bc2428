/**
 * @module translations
 * The admin components' strings, by language, under the plugin's i18n namespace: a component calls
 * `t('storageHost:status')`. Merged into `config.i18n.translations` by admin/mergeTranslations.ts.
 */
import { PLUGIN_KEY } from '../constants.js'
import { de } from './de.js'
import { en, type StorageHostTranslations } from './en.js'

/** i18n namespace of the plugin (the part before `:` in a translation key). */
export const I18N_NAMESPACE = PLUGIN_KEY

export type { StorageHostTranslations }

/** `{ [language]: { storageHost: {...} } }`, the shape of Payload's `i18n.translations`. */
export const translations: Record<string, Record<typeof I18N_NAMESPACE, StorageHostTranslations>> = {
  de: { [I18N_NAMESPACE]: de },
  en: { [I18N_NAMESPACE]: en },
}
