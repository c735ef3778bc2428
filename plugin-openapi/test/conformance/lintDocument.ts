/**
 * @module plugin-openapi/test/conformance/lintDocument
 * Lints an OpenAPI document with the two linters API teams run in CI, through their command lines as a user
 * runs them: `redocly lint` (recommended rules) and `spectral lint` with the `spectral:oas` ruleset. Telemetry
 * and the update check of Redocly are off (no network here).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface LintResult {
  linter: 'redocly' | 'spectral'
  /** `rule: message at pointer` of each error. */
  errors: string[]
  /** Warning counts by rule. */
  warnings: Record<string, number>
}

const bin = (name: string) => new URL(`../../../node_modules/.bin/${name}`, import.meta.url).pathname

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 180_000,
  })
  if (result.error) throw new Error(`${command} could not run: ${result.error.message}`)
  return result.stdout
}

/** Both linters' results for one document. */
export function lintDocument(doc: object): LintResult[] {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'))
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc))
    writeFileSync(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n')
    const redocly = JSON.parse(run(bin('redocly'), ['lint', '--extends', 'recommended', '--format', 'json', 'openapi.json'], dir)) as {
      problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[]
    }
    const spectral = JSON.parse(run(bin('spectral'), ['lint', '-r', '.spectral.yaml', '-f', 'json', 'openapi.json'], dir) || '[]') as {
      code: string
      severity: number
      message: string
      path: string[]
    }[]
    const count = (rules: string[]) => rules.reduce<Record<string, number>>((out, r) => ({ ...out, [r]: (out[r] ?? 0) + 1 }), {})
    return [
      {
        linter: 'redocly',
        errors: redocly.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
        warnings: count(redocly.problems.filter((p) => p.severity === 'warn').map((p) => p.ruleId)),
      },
      {
        linter: 'spectral',
        errors: spectral.filter((p) => p.severity === 0).map((p) => `${p.code}: ${p.message} at ${p.path.join('.')}`),
        warnings: count(spectral.filter((p) => p.severity === 1).map((p) => p.code)),
      },
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
