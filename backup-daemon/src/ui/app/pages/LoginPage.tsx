/** @jsxImportSource preact */
/**
 * @module ui/app/pages/LoginPage
 * Username and password form for `POST /auth/login`. After login the user goes back to `next`
 * (where the expired session caught them), limited to same-origin paths.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError } from '../api.js'
import { navigate } from '../router.js'

interface LoginPageProps {
  authEnabled: boolean
  reason: string | null
  next: string | null
  onLoggedIn(): void
}

/** Only a local path may be a target (never `//evil.example` or `https://...`). */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/login') ? next : '/'
}

export function LoginPage({ authEnabled, reason, next, onLoggedIn }: LoginPageProps) {
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const userRef = useRef<HTMLInputElement>(null)
  useEffect(() => userRef.current?.focus(), [])

  if (!authEnabled) {
    return (
      <main id="main" tabIndex={-1} class="page narrow">
        <h1>Log in</h1>
        <p>This daemon does not require a login.</p>
        <a href={safeNext(next)}>Continue</a>
      </main>
    )
  }

  const submit = async (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    setBusy(true)
    setError(undefined)
    try {
      await api.login(String(form.get('username') ?? ''), String(form.get('password') ?? ''))
      onLoggedIn()
      navigate(safeNext(next), { replace: true })
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setError('Wrong username or password.')
      else if (err instanceof ApiError && err.status === 429) setError('Too many attempts: wait a moment and try again.')
      else setError(err instanceof Error ? err.message : String(err))
      setBusy(false)
    }
  }

  return (
    <main id="main" tabIndex={-1} class="page narrow">
      <h1>Log in</h1>
      {reason === 'expired' && !error && (
        <p class="alert info" role="status">
          Your session has expired. Log in again to continue where you were.
        </p>
      )}
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      <form class="login-form" onSubmit={(e) => void submit(e)}>
        <label>
          Username
          <input ref={userRef} name="username" autocomplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  )
}
