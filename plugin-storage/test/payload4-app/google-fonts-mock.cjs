// Google Fonts cannot be reached from the test machines. `NEXT_FONT_GOOGLE_MOCKED_RESPONSES` is Next.js's
// own hook for its tests: it reads the CSS of a font URL from this module (and the font files become
// placeholder bytes, so the browser falls back to a system font). Any family, any weights.
const css = (url) => {
  const family = decodeURIComponent(/family=([^:&]+)/.exec(url)?.[1] ?? 'Mock').replace(/\+/g, ' ')
  return `@font-face {\n  font-family: '${family}';\n  font-style: normal;\n  font-weight: 400;\n  font-display: swap;\n  src: url(https://fonts.gstatic.com/mock/${encodeURIComponent(family)}.woff2) format('woff2');\n}\n`
}
module.exports = new Proxy({}, { get: (_, url) => (typeof url === 'string' && url.startsWith('https://') ? css(url) : undefined) })
