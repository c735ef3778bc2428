/**
 * @module admin/mergeTranslations
 * Adds the plugin's strings to `config.i18n.translations`, language by language and namespace by
 * namespace, without replacing what the host app has: a value the app sets under the plugin's key wins
 * (an app can reword or translate any string).
 */
import type { Config } from 'payload'

type Translations = Record<string, Record<string, Record<string, string>>>

/** `ours` under `theirs`: for each language and namespace, the app's keys override the plugin's. */
export function mergeTranslations(ours: Translations, theirs: Translations | undefined): Translations {
  const merged: Translations = { ...theirs }
  for (const [language, namespaces] of Object.entries(ours)) {
    const app = theirs?.[language] ?? {}
    const out: Record<string, Record<string, string>> = { ...app }
    for (const [namespace, strings] of Object.entries(namespaces)) out[namespace] = { ...strings, ...app[namespace] }
    merged[language] = out
  }
  return merged
}

/** The config with the plugin's translations merged into `i18n.translations`. */
export function withTranslations(config: Config, ours: Translations): Config {
  const theirs = config.i18n?.translations as Translations | undefined
  return { ...config, i18n: { ...config.i18n, translations: mergeTranslations(ours, theirs) } }
}
