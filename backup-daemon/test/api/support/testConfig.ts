/**
 * @module test/api/support/testConfig
 * A `DaemonConfig` for API tests with auth on, every permission on, and overrides by deep-ish merge.
 */
import type { AuthConfig, DaemonConfig, Permissions } from '../../../src/config/types.js'

export const testUser = 'admin'
export const testPassword = 'correct horse battery staple'

export interface TestConfigOverrides {
  auth?: Partial<AuthConfig>
  permissions?: Partial<Permissions>
  logs?: Partial<DaemonConfig['logs']>
  secret?: string
  ui?: boolean
  address?: string
}

export function testConfig(o: TestConfigOverrides = {}): DaemonConfig {
  return {
    dataDir: '/nonexistent/data',
    server: {
      address: o.address ?? '127.0.0.1:0',
      secret: o.secret ?? 'test-secret-of-reasonable-length-0123456789',
      auth: {
        enabled: true,
        username: testUser,
        // Plain text is accepted by verifyPassword (constant-time compare); the real-process test uses a hash.
        password: testPassword,
        tokenExpiration: 30,
        cookies: { secure: false, sameSite: 'Lax' },
        allowedOrigins: [],
        ...o.auth,
      },
      permissions: { allowManualRun: true, allowBackupDownload: true, showConfig: true, ...o.permissions },
      ui: { enabled: o.ui ?? false },
    },
    logs: { system: true, perJob: true, directory: '/nonexistent/logs', ...o.logs },
    logLimits: { jobLogs: 1000, systemLogs: 2000 },
    jobs: [],
  }
}
