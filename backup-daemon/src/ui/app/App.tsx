/** @jsxImportSource preact */
/**
 * @module ui/app/App
 * Boot and layout: reads `GET /settings` and `GET /auth/check` first (both public), sends the user
 * to the login page when auth is on and there is no session, then shows the page for the route.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError, onUnauthorized, type AuthCheck, type Settings } from './api.js'
import { ThemeToggle } from './components/ThemeToggle.js'
import { DashboardPage } from './pages/DashboardPage.js'
import { JobPage } from './pages/JobPage.js'
import { LoginPage } from './pages/LoginPage.js'
import { NotFoundPage } from './pages/NotFoundPage.js'
import { SystemPage } from './pages/SystemPage.js'
import { linkClick, loginPath, navigate, useLocation } from './router.js'

export function App() {
  const location = useLocation()
  const [settings, setSettings] = useState<Settings>()
  const [auth, setAuth] = useState<AuthCheck>()
  const [bootError, setBootError] = useState<string>()

  const boot = useCallback(async () => {
    try {
      const [s, a] = await Promise.all([api.settings(), api.authCheck()])
      setSettings(s)
      setAuth(a)
      setBootError(undefined)
    } catch (err) {
      setBootError(err instanceof ApiError ? err.message : String(err))
    }
  }, [])

  useEffect(() => {
    void boot()
    onUnauthorized(() => {
      setAuth((a) => (a ? { ...a, authenticated: false } : a))
      navigate(loginPath('expired'), { replace: true })
    })
  }, [boot])

  // After an in-app navigation, keyboard and screen-reader users start at the new page's content,
  // not on a link that no longer exists (the login page focuses its username field itself).
  const previousPath = useRef<string | undefined>(undefined)
  useEffect(() => {
    const previous = previousPath.current
    previousPath.current = location.path
    if (previous === undefined || previous === location.path || location.path === '/login') return
    document.getElementById('main')?.focus({ preventScroll: true })
  }, [location.path])

  const needsLogin = auth !== undefined && auth.authEnabled && !auth.authenticated
  useEffect(() => {
    if (needsLogin && location.path !== '/login') navigate(loginPath(), { replace: true })
  }, [needsLogin, location.path])

  if (bootError) {
    return (
      <main id="main" tabIndex={-1} class="page narrow">
        <h1>Backup daemon</h1>
        <p class="alert error" role="alert">
          {bootError}
        </p>
        <button onClick={() => void boot()}>Try again</button>
      </main>
    )
  }
  if (!settings || !auth) return <p class="boot">Loading…</p>

  const logout = async () => {
    try {
      await api.logout()
    } catch {}
    setAuth({ ...auth, authenticated: false })
    navigate('/login', { replace: true })
  }

  let page
  const jobMatch = /^\/jobs\/([^/]+)\/?$/.exec(location.path)
  if (location.path === '/login') {
    page = (
      <LoginPage
        authEnabled={auth.authEnabled}
        reason={location.search.get('reason')}
        next={location.search.get('next')}
        onLoggedIn={() => setAuth({ ...auth, authenticated: true })}
      />
    )
  } else if (needsLogin) page = <p class="boot">Loading…</p>
  else if (location.path === '/') page = <DashboardPage />
  else if (jobMatch) page = <JobPage name={decodeURIComponent(jobMatch[1]!)} settings={settings} />
  // `/logs/system` was this page's address before it showed the daemon's status too.
  else if (location.path === '/system' || location.path === '/logs/system') page = <SystemPage settings={settings} />
  else page = <NotFoundPage />

  const signedIn = !auth.authEnabled || auth.authenticated
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/" onClick={linkClick}>
          Backup daemon
        </a>
        {signedIn && location.path !== '/login' && (
          <nav aria-label="Main">
            <a href="/" onClick={linkClick} aria-current={location.path === '/' ? 'page' : undefined}>
              Jobs
            </a>
            <a href="/system" onClick={linkClick} aria-current={location.path === '/system' || location.path === '/logs/system' ? 'page' : undefined}>
              System
            </a>
          </nav>
        )}
        <div class="topbar-end">
          <ThemeToggle />
          {auth.authEnabled && auth.authenticated && (
            <button class="link-button" onClick={() => void logout()}>
              Log out
            </button>
          )}
        </div>
      </header>
      {page}
    </>
  )
}
