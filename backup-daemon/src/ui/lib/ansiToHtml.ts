/**
 * @module ui/lib/ansiToHtml
 * Renders a log line with ANSI SGR colour codes (`ESC[...m`) as HTML spans. The text is always
 * HTML-escaped first, so a log line can never inject markup; colours become classes (`ansi-fg-1`,
 * `ansi-bold`, ...): 0-15 map to theme-aware colours in the stylesheet, 16-255 to the generated
 * palette of `ansiPaletteCss()`, and true colours to the nearest of those. No inline styles, so a
 * strict Content-Security-Policy holds. Other escape sequences (cursor moves, OSC titles) are dropped.
 */

/** The style in force at one point of a line. */
export interface AnsiStyle {
  bold: boolean
  dim: boolean
  italic: boolean
  underline: boolean
  inverse: boolean
  /** xterm colour index `0`-`255` (true colours map to the nearest), undefined for the default. */
  fg?: number
  bg?: number
}

/** A run of text with one style. */
export interface AnsiSegment {
  text: string
  style: AnsiStyle
}

// CSI sequences (ESC [ params final) and OSC sequences (ESC ] ... BEL/ST); other lone ESCs.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[([0-9;:?]*)([@-~])|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b/g

const plain = (): AnsiStyle => ({ bold: false, dim: false, italic: false, underline: false, inverse: false })

/** Splits a line into styled segments; escape sequences are consumed, text kept verbatim. */
export function parseAnsi(line: string): AnsiSegment[] {
  const segments: AnsiSegment[] = []
  let style = plain()
  let last = 0
  for (const match of line.matchAll(ESCAPES)) {
    if (match.index > last) segments.push({ text: line.slice(last, match.index), style: { ...style } })
    last = match.index + match[0].length
    if (match[2] === 'm') style = applySgr(style, match[1] ?? '')
  }
  if (last < line.length) segments.push({ text: line.slice(last), style: { ...style } })
  return segments
}

/** Removes every escape sequence (for copy and search). */
export function stripAnsi(line: string): string {
  return line.indexOf('\u001b') === -1 ? line : line.replace(ESCAPES, '')
}

/** The line as HTML: escaped text, styled runs wrapped in `<span class="ansi-...">`. */
export function ansiToHtml(line: string): string {
  if (line.indexOf('\u001b') === -1) return escapeHtml(line)
  let html = ''
  for (const { text, style } of parseAnsi(line)) {
    const classes = styleClasses(style)
    const escaped = escapeHtml(text)
    html += classes.length === 0 ? escaped : `<span class="${classes.join(' ')}">${escaped}</span>`
  }
  return html
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function styleClasses(style: AnsiStyle): string[] {
  const classes: string[] = []
  // Inverse swaps the colours; a default colour swapped has its own class (the theme's fg/bg).
  const fg = style.inverse ? (style.bg ?? 'inverse-fg') : style.fg
  const bg = style.inverse ? (style.fg ?? 'inverse-bg') : style.bg
  if (typeof fg === 'number') classes.push(`ansi-fg-${fg}`)
  else if (fg) classes.push(`ansi-${fg}`)
  if (typeof bg === 'number') classes.push(`ansi-bg-${bg}`)
  else if (bg) classes.push(`ansi-${bg}`)
  if (style.bold) classes.push('ansi-bold')
  if (style.dim) classes.push('ansi-dim')
  if (style.italic) classes.push('ansi-italic')
  if (style.underline) classes.push('ansi-underline')
  return classes
}

function applySgr(current: AnsiStyle, params: string): AnsiStyle {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)))
  let style = { ...current }
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!
    if (code === 0) style = plain()
    else if (code === 1) style.bold = true
    else if (code === 2) style.dim = true
    else if (code === 3) style.italic = true
    else if (code === 4) style.underline = true
    else if (code === 7) style.inverse = true
    else if (code === 22) style.bold = style.dim = false
    else if (code === 23) style.italic = false
    else if (code === 24) style.underline = false
    else if (code === 27) style.inverse = false
    else if (code >= 30 && code <= 37) style.fg = code - 30
    else if (code >= 90 && code <= 97) style.fg = code - 90 + 8
    else if (code === 39) style.fg = undefined
    else if (code >= 40 && code <= 47) style.bg = code - 40
    else if (code >= 100 && code <= 107) style.bg = code - 100 + 8
    else if (code === 49) style.bg = undefined
    else if (code === 38 || code === 48) {
      const { color, used } = extendedColor(codes, i + 1)
      if (code === 38) style.fg = color
      else style.bg = color
      i += used
    }
  }
  return style
}

/** Reads `5;n` (256 colours) or `2;r;g;b` (true colour, mapped to the nearest of the 256). */
function extendedColor(codes: number[], at: number): { color: number | undefined; used: number } {
  const mode = codes[at]
  if (mode === 5) {
    const n = codes[at + 1] ?? 0
    return { color: n >= 0 && n <= 255 ? n : undefined, used: 2 }
  }
  if (mode === 2) {
    const [r = 0, g = 0, b = 0] = codes.slice(at + 1, at + 4)
    return { color: nearestXterm(r, g, b), used: 4 }
  }
  return { color: undefined, used: 0 }
}

const CUBE = [0, 95, 135, 175, 215, 255]

/** The RGB hex of xterm colour 16-255 (the 6x6x6 cube, then 24 greys). */
export function xtermHex(n: number): string {
  if (n >= 232) {
    const level = 8 + (n - 232) * 10
    return hex(level, level, level)
  }
  const index = n - 16
  return hex(CUBE[Math.floor(index / 36) % 6]!, CUBE[Math.floor(index / 6) % 6]!, CUBE[index % 6]!)
}

function nearestXterm(r: number, g: number, b: number): number {
  const level = (v: number) => {
    let best = 0
    for (let i = 1; i < CUBE.length; i++) if (Math.abs(CUBE[i]! - v) < Math.abs(CUBE[best]! - v)) best = i
    return best
  }
  const cube = 16 + 36 * level(r) + 6 * level(g) + level(b)
  const grey = Math.min(23, Math.max(0, Math.round(((r + g + b) / 3 - 8) / 10)))
  const distance = (h: string) => {
    const [cr, cg, cb] = [1, 3, 5].map((o) => parseInt(h.slice(o, o + 2), 16)) as [number, number, number]
    return (cr - r) ** 2 + (cg - g) ** 2 + (cb - b) ** 2
  }
  return distance(xtermHex(232 + grey)) < distance(xtermHex(cube)) ? 232 + grey : cube
}

/**
 * CSS rules for colours 16-255 (`.ansi-fg-N` / `.ansi-bg-N`). The build bundles them into the
 * stylesheet: a strict Content-Security-Policy forbids inline `style` attributes, so every colour is a class.
 */
export function ansiPaletteCss(): string {
  let css = ''
  for (let n = 16; n < 256; n++) css += `.ansi-fg-${n}{color:${xtermHex(n)}}.ansi-bg-${n}{background-color:${xtermHex(n)}}\n`
  return css
}

function hex(r: number, g: number, b: number): string {
  const part = (v: number) =>
    Math.max(0, Math.min(255, Math.trunc(v)))
      .toString(16)
      .padStart(2, '0')
  return `#${part(r)}${part(g)}${part(b)}`
}
