/**
 * @module cli/configKeySuggestion
 * "did you mean" for a misspelled config key: the keys valid at the issue's place are read from the
 * config schema itself (walked through objects, arrays, unions (every source or storage type's keys),
 * optionals, defaults and pipes), so the suggestion can never name a key the daemon would refuse.
 */
import type { ConfigIssue } from '../config/ConfigError.js'
import { configSchema } from '../config/schema.js'
import { suggest } from './terminal/suggest.js'

interface Def {
  type: string
  shape?: Record<string, Schema>
  innerType?: Schema
  in?: Schema
  element?: Schema
  options?: Schema[]
  valueType?: Schema
  left?: Schema
  right?: Schema
  getter?: () => Schema
}
interface Schema {
  _zod: { def: Def }
}

/** `jobs[0].sources[1].pth` → ['jobs', 0, 'sources', 1, 'pth']. */
const stepsOf = (path: string) => [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!))

/** The object schemas a value at `steps` may have to match (several below a union). */
function objectsAt(schema: Schema, steps: (string | number)[], depth = 0): Schema[] {
  if (depth > 64) return []
  const def = schema._zod.def
  const again = (next: Schema | undefined, rest = steps) => (next ? objectsAt(next, rest, depth + 1) : [])
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return again(def.innerType)
    case 'pipe':
      return again(def.in)
    case 'lazy':
      return again(def.getter?.())
    case 'union':
      return (def.options ?? []).flatMap((option) => again(option))
    case 'intersection':
      return [...again(def.left), ...again(def.right)]
  }
  if (steps.length === 0) return def.type === 'object' ? [schema] : []
  const [step, ...rest] = steps
  if (def.type === 'object' && typeof step === 'string') return again(def.shape?.[step], rest)
  if (def.type === 'array' && typeof step === 'number') return again(def.element, rest)
  if (def.type === 'record') return again(def.valueType, rest)
  return []
}

/** The valid keys at the place of `path`'s last key (empty when the place is not found). */
export function validKeysAt(path: string): string[] {
  const steps = stepsOf(path)
  const keys = new Set(objectsAt(configSchema as unknown as Schema, steps.slice(0, -1)).flatMap((object) => Object.keys(object._zod.def.shape ?? {})))
  return [...keys]
}

/** The issue with `; did you mean "x"?` added when it is an unknown key near a valid one. */
export function withKeySuggestion(issue: ConfigIssue): ConfigIssue {
  const unknown = /^unknown key "([^"]+)"$/.exec(issue.message)?.[1]
  if (!unknown) return issue
  const near = suggest(unknown, validKeysAt(issue.path))
  return near ? { ...issue, message: `${issue.message}; did you mean "${near}"?` } : issue
}
