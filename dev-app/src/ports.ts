/**
 * @module ports
 * The dev-app's default ports (DESIGN.md), each overridable by an environment variable.
 */
export const ports = {
  cms: Number(process.env.CMS_PORT ?? 3000),
  daemon: Number(process.env.DAEMON_PORT ?? 8080),
  emulator: Number(process.env.EMULATOR_PORT ?? 3100),
}
