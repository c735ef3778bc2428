/**
 * @module server/docsPage
 * The API docs page at `/api/v1/docs`: one self-contained HTML document (no CDN, works offline) whose
 * small script fetches `/api/v1/openapi` and lists every operation with its parameters, request body and
 * responses. The inline script and style are allowed by their hashes in the page's own CSP.
 */
import { createHash } from 'node:crypto'

const style = `body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem 1.5rem;color:#222}
h1{margin-bottom:.2rem}.op{border:1px solid #ccd;border-radius:6px;margin:.7rem 0;padding:.5rem .8rem}
.m{display:inline-block;min-width:4.2rem;font-weight:700;text-transform:uppercase}.get{color:#0a6}.post{color:#06c}
code,pre{background:#f4f4f8;border-radius:3px;padding:0 .25rem}pre{padding:.5rem;overflow:auto}
table{border-collapse:collapse}td,th{border-bottom:1px solid #eee;padding:.15rem .6rem;text-align:left;vertical-align:top}.lock{color:#a60}`

const script = `(async () => {
  const root = document.getElementById('ops')
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e }
  const ref = (s) => (s && s.$ref ? s.$ref.split('/').pop() : s && s.type ? s.type : '')
  let doc
  try { doc = await (await fetch('openapi', { credentials: 'same-origin' })).json() } catch (err) { root.textContent = 'Could not load the API description: ' + err; return }
  document.getElementById('title').textContent = doc.info.title + ' ' + doc.info.version
  document.getElementById('desc').textContent = (doc.info.description || '') + ' Base path: ' + ((doc.servers && doc.servers[0] && doc.servers[0].url) || '/')
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const box = el('section', undefined, 'op')
      const head = el('div')
      head.append(el('span', method, 'm ' + method), el('code', path), el('span', ' ' + (op.summary || '')))
      if (op.security && op.security.length) head.append(el('span', ' (session)', 'lock'))
      box.append(head)
      if (op.description) box.append(el('p', op.description))
      if (op.parameters && op.parameters.length) {
        const t = el('table'); t.append(el('tr')); t.rows[0].append(el('th', 'parameter'), el('th', 'in'), el('th', 'schema'), el('th', 'description'))
        for (const p of op.parameters) { const r = el('tr'); r.append(el('td', p.name), el('td', p.in), el('td', JSON.stringify(p.schema)), el('td', p.description || '')); t.append(r) }
        box.append(t)
      }
      if (op.requestBody) for (const [type, c] of Object.entries(op.requestBody.content)) box.append(el('p', 'Body (' + type + '): ' + ref(c.schema)))
      const t = el('table')
      for (const [status, r] of Object.entries(op.responses)) {
        const row = el('tr'); const types = Object.entries(r.content || {}).map(([ct, c]) => ct + ' ' + ref(c.schema)).join(', ')
        row.append(el('td', status), el('td', r.description), el('td', types)); t.append(row)
      }
      box.append(t); root.append(box)
    }
  }
  const schemas = el('details'); schemas.append(el('summary', 'Schemas'), el('pre', JSON.stringify(doc.components.schemas, null, 2)))
  root.append(schemas)
})()`

const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

export const docsPageHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Backup daemon API</title><style>${style}</style></head>
<body><h1 id="title">Backup daemon API</h1><p id="desc"></p>
<p>Machine-readable description: <a href="openapi">openapi</a> (OpenAPI 3.1).</p><main id="ops"></main>
<script>${script}</script></body></html>`

/** The CSP the page needs: its own inline script and style, and fetches to the same origin. */
export const docsPageCsp = `default-src 'none'; script-src ${sha(script)}; style-src ${sha(style)}; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`
