#!/usr/bin/env node
// Runs the TypeScript CLI through tsx (the package ships its sources, like the rest of this repository).
import { register } from 'tsx/esm/api'

register()
const { runCli } = await import('../src/write/cli.ts')
process.exitCode = await runCli(process.argv.slice(2))
