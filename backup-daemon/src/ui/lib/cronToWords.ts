/**
 * @module ui/lib/cronToWords
 * Describes a cron expression in plain English for the dashboard ("every day at 02:00",
 * "every 15 minutes, Monday to Friday"). Covers the croner syntax jobs use: 5 fields, or 6 with
 * seconds first, numbers, names, lists, ranges, steps and the `@daily`-style nicknames. Anything it
 * cannot phrase well falls back to the expression itself, so the UI never shows a wrong sentence.
 */

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const DAY_ALIASES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']
const MONTH_ALIASES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']

const NICKNAMES: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
}

/** One field parsed: `any` (`*`), `step` (`*\/n`), or an explicit list of values. */
type Field = { kind: 'any' } | { kind: 'step'; step: number } | { kind: 'list'; values: number[]; text: string }

/** Returns an English sentence for `expression`, or the expression itself when it cannot be phrased. */
export function cronToWords(expression: string): string {
  const trimmed = expression.trim()
  // An empty schedule is allowed by the config: the job runs only when started by hand.
  if (trimmed === '') return 'manual runs only'
  const expanded = NICKNAMES[trimmed.toLowerCase()] ?? trimmed
  const parts = expanded.split(/\s+/)
  if (parts.length !== 5 && parts.length !== 6) return trimmed
  const [sec, min, hour, dom, month, dow] = parts.length === 6 ? parts : ['0', ...parts]
  try {
    const fields = {
      sec: parseField(sec!, 0, 59),
      min: parseField(min!, 0, 59),
      hour: parseField(hour!, 0, 23),
      dom: parseField(dom!, 1, 31),
      month: parseField(month!, 1, 12, MONTH_ALIASES, 1),
      dow: parseField(dow!, 0, 7, DAY_ALIASES, 0),
    }
    return compose(fields)
  } catch {
    return trimmed
  }
}

function parseField(text: string, min: number, max: number, aliases?: string[], aliasBase = 0): Field {
  if (text === '*' || text === '?') return { kind: 'any' }
  const stepMatch = /^\*\/(\d+)$/.exec(text)
  if (stepMatch) {
    const step = Number(stepMatch[1])
    if (step <= 0) throw new Error('bad step')
    return step === 1 ? { kind: 'any' } : { kind: 'step', step }
  }
  const values = new Set<number>()
  for (const item of text.split(',')) {
    const [range, stepText] = item.split('/')
    const step = stepText === undefined ? 1 : Number(stepText)
    if (!Number.isInteger(step) || step <= 0) throw new Error('bad step')
    const [fromText, toText] = range!.split('-')
    const from = range === '*' ? min : toNumber(fromText!, aliases, aliasBase)
    const to = range === '*' ? max : toText === undefined ? (stepText === undefined ? from : max) : toNumber(toText, aliases, aliasBase)
    if (from < min || to > max || from > to) throw new Error('out of range')
    for (let v = from; v <= to; v += step) values.add(v)
  }
  return { kind: 'list', values: [...values].sort((a, b) => a - b), text }
}

function toNumber(text: string, aliases: string[] | undefined, aliasBase: number): number {
  const alias = aliases?.indexOf(text.toUpperCase()) ?? -1
  if (alias >= 0) return alias + aliasBase
  if (!/^\d+$/.test(text)) throw new Error(`not a number: ${text}`)
  return Number(text)
}

interface Fields {
  sec: Field
  min: Field
  hour: Field
  dom: Field
  month: Field
  dow: Field
}

function compose(f: Fields): string {
  const days = dayPhrase(f)
  const at = clockTimes(f)
  if (at) return days === 'every day' ? `every day at ${at}` : `${days} at ${at}`
  const interval = intervalPhrase(f)
  return days === 'every day' ? interval : `${interval}, ${days}`
}

/** "02:00" or "09:00 and 17:30" when the run times are a few fixed clock times, else undefined. */
function clockTimes(f: Fields): string | undefined {
  if (f.sec.kind !== 'list' || f.min.kind !== 'list' || f.hour.kind !== 'list') return undefined
  if (f.sec.values.length * f.min.values.length * f.hour.values.length > 4) return undefined
  const times: string[] = []
  for (const h of f.hour.values) {
    for (const m of f.min.values) {
      for (const s of f.sec.values) times.push(`${pad(h)}:${pad(m)}${s === 0 ? '' : `:${pad(s)}`}`)
    }
  }
  return joinWords(times)
}

function intervalPhrase(f: Fields): string {
  const seconds = secondsPhrase(f.sec)
  if (seconds) return f.min.kind === 'any' && f.hour.kind === 'any' ? seconds : `${seconds} (${minuteHourPhrase(f)})`
  return minuteHourPhrase(f)
}

function secondsPhrase(sec: Field): string | undefined {
  if (sec.kind === 'any') return 'every second'
  if (sec.kind === 'step') return `every ${sec.step} seconds`
  if (sec.values.length === 1 && sec.values[0] === 0) return undefined
  return `at second ${joinWords(sec.values.map(String))}`
}

function minuteHourPhrase(f: Fields): string {
  const { min, hour } = f
  let minutes: string
  if (min.kind === 'any') minutes = 'every minute'
  else if (min.kind === 'step') minutes = `every ${min.step} minutes`
  else if (min.values.length === 1 && min.values[0] === 0) minutes = ''
  else minutes = `at minute ${joinWords(min.values.map(String))}`

  if (hour.kind === 'any') return minutes === '' ? 'every hour' : minutes.startsWith('at') ? `every hour ${minutes}` : minutes
  if (hour.kind === 'step') {
    const hours = `every ${hour.step} hours`
    if (minutes === '') return hours
    return minutes.startsWith('at') ? `${hours} ${minutes}` : `${minutes}, ${hours}`
  }
  const range = contiguous(hour.values)
  const during = range ? `from ${pad(range[0])}:00 to ${pad(range[1])}:59` : `during hour ${joinWords(hour.values.map((h) => pad(h)))}`
  if (minutes.startsWith('at')) return `every hour ${minutes}, ${during}`
  return `${minutes || 'every hour'}, ${during}`
}

function dayPhrase(f: Fields): string {
  const { dom, month, dow } = f
  const weekdays = dow.kind === 'list' ? [...new Set(dow.values.map((d) => d % 7))].sort((a, b) => a - b) : undefined
  let phrase: string
  if (dom.kind === 'any' && !weekdays) phrase = dow.kind === 'step' ? `every ${dow.step} days of the week` : 'every day'
  else if (dom.kind === 'any' && weekdays) phrase = weekdayPhrase(weekdays)
  else if (dom.kind === 'step') phrase = `every ${dom.step} days`
  else if (dom.kind === 'list') {
    const daysText = `day ${joinWords(dom.values.map(String))}`
    phrase = month.kind === 'list' ? `on ${daysText} of ${joinWords(month.values.map(monthName))}` : `on ${daysText} of every month`
    if (weekdays) phrase += ` and ${weekdayPhrase(weekdays)}`
    return phrase
  } else phrase = 'every day'

  if (month.kind === 'list') return `${phrase} in ${joinWords(month.values.map(monthName))}`
  if (month.kind === 'step') return `${phrase}, every ${month.step} months`
  return phrase
}

function weekdayPhrase(days: number[]): string {
  const range = contiguous(days)
  if (days.length === 7) return 'every day'
  if (range && days.length >= 3) return `${DAY_NAMES[range[0]]} to ${DAY_NAMES[range[1]]}`
  return `on ${joinWords(days.map((d) => DAY_NAMES[d]!))}`
}

function monthName(m: number): string {
  return MONTH_NAMES[m - 1]!
}

/** [first, last] when `values` are consecutive, else undefined. */
function contiguous(values: number[]): [number, number] | undefined {
  if (values.length < 2) return undefined
  for (let i = 1; i < values.length; i++) if (values[i] !== values[i - 1]! + 1) return undefined
  return [values[0]!, values[values.length - 1]!]
}

function joinWords(words: string[]): string {
  if (words.length <= 1) return words.join('')
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}
