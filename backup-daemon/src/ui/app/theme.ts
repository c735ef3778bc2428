/**
 * @module ui/app/theme
 * Light and dark themes: the stylesheet follows `prefers-color-scheme` unless the user picked one,
 * which is kept in localStorage and set as `data-theme` on `<html>`.
 */

export type ThemeChoice = 'system' | 'light' | 'dark'

const KEY = 'backup-daemon-theme'

export function storedTheme(): ThemeChoice {
  try {
    const value = localStorage.getItem(KEY)
    return value === 'light' || value === 'dark' ? value : 'system'
  } catch {
    return 'system'
  }
}

export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') delete document.documentElement.dataset.theme
  else document.documentElement.dataset.theme = choice
  try {
    if (choice === 'system') localStorage.removeItem(KEY)
    else localStorage.setItem(KEY, choice)
  } catch {}
}
