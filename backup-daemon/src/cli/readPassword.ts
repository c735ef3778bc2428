/**
 * @module cli/readPassword
 * The password for `hash-password`: all of stdin when it is piped (a trailing newline dropped), or typed
 * at a prompt without echo when stdin is a terminal.
 */
import { text } from 'node:stream/consumers'

export async function readPassword(prompt: string): Promise<string> {
  const stdin = process.stdin
  if (!stdin.isTTY) return (await text(stdin)).replace(/\r?\n$/, '')
  process.stderr.write(prompt)
  stdin.setRawMode(true)
  stdin.resume()
  stdin.setEncoding('utf8')
  return new Promise((resolve, reject) => {
    let value = ''
    const done = (result: Error | string) => {
      stdin.setRawMode(false)
      stdin.pause()
      stdin.off('data', onData)
      process.stderr.write('\n')
      if (typeof result === 'string') resolve(result)
      else reject(result)
    }
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return done(value)
        if (char === '\u0003') return done(new Error('interrupted'))
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1)
        else value += char
      }
    }
    stdin.on('data', onData)
  })
}
