/** @module emulator Public entry of the host emulator (the emulator work fills in `startEmulator`). */
export type { EmulatorOptions, RunningEmulator, EmulatedVideo } from './types.js'
