/**
 * @module start/childOutput
 * What `npm start` shows of a child's output line. The children write for a terminal even when their
 * output is a pipe: Payload's logger colours its levels, and the database push of the seed step draws a
 * spinner (drizzle-kit: a frame, then `ESC[2K ESC[1G` and the next frame on the same line). Relayed with a
 * `[name]` prefix, those codes arrive as raw bytes in logs and break the prefixed lines in terminals, so
 * each line is shown as a terminal would have left it, in plain text, and the spinner's passing frames
 * are left out (its final `[✓] …` line stays).
 */
import { stripVTControlCharacters } from 'node:util'

/** A spinner frame: a braille dot pattern in brackets, e.g. `[⣷] Pulling schema from database...`. */
const spinnerFrame = /^\[[\u2800-\u28ff]\]/
/** Cursor back to the start of the line (`ESC[1G`, `ESC[G`, `ESC[0G`) or a carriage return: what follows overwrites what came before. */
const lineRestart = new RegExp(`${String.fromCharCode(27)}\\[[01]?G|\\r(?!$)`, 'g')

/** The text of one output line as it should be shown, or `undefined` for a line not worth showing. */
export function displayLine(raw: string): string | undefined {
  const parts = raw.split(lineRestart)
  const shown = stripVTControlCharacters(parts[parts.length - 1] ?? '').replace(/\r$/, '')
  if (spinnerFrame.test(shown)) return undefined
  return shown
}
