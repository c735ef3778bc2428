/** @jsxImportSource preact */
/**
 * @module ui/app/components/ThemeToggle
 * Cycles the theme: system → light → dark.
 */
import { useState } from 'preact/hooks'
import { applyTheme, storedTheme, type ThemeChoice } from '../theme.js'

const NEXT: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' }
const LABEL: Record<ThemeChoice, string> = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' }

export function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme)
  return (
    <button
      class="link-button theme-toggle"
      title="Switch between system, light and dark themes"
      onClick={() => {
        const next = NEXT[choice]
        applyTheme(next)
        setChoice(next)
      }}
    >
      {LABEL[choice]}
    </button>
  )
}
