/**
 * @module ui/app/router
 * A tiny History API router: the server answers every client route with `index.html`, and the app
 * reads `location` to pick a page. Links call `navigate` so the page does not reload.
 */
import { useEffect, useState } from 'preact/hooks'

const CHANGE = 'ui:navigate'

export interface Location {
  path: string
  search: URLSearchParams
}

function current(): Location {
  return { path: window.location.pathname, search: new URLSearchParams(window.location.search) }
}

/** Goes to `to` (path and query) without a reload; `replace` keeps the history entry count. */
export function navigate(to: string, { replace = false } = {}): void {
  if (to === window.location.pathname + window.location.search) return
  if (replace) window.history.replaceState(null, '', to)
  else window.history.pushState(null, '', to)
  window.dispatchEvent(new Event(CHANGE))
}

/** The current location, re-rendering on navigation and on back/forward. */
export function useLocation(): Location {
  const [location, setLocation] = useState(current)
  useEffect(() => {
    const update = () => setLocation(current())
    window.addEventListener('popstate', update)
    window.addEventListener(CHANGE, update)
    return () => {
      window.removeEventListener('popstate', update)
      window.removeEventListener(CHANGE, update)
    }
  }, [])
  return location
}

/** Click handler for in-app links: plain left clicks navigate in place, others keep browser behaviour. */
export function linkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  const anchor = event.currentTarget as HTMLAnchorElement
  if (anchor.target || anchor.origin !== window.location.origin) return
  event.preventDefault()
  navigate(anchor.pathname + anchor.search)
}

/** `/login?next=<where the user was>`, used when the session is missing or expired. */
export function loginPath(reason?: 'expired'): string {
  const here = window.location.pathname + window.location.search
  const params = new URLSearchParams()
  if (window.location.pathname !== '/login') params.set('next', here)
  if (reason) params.set('reason', reason)
  const query = params.toString()
  return query ? `/login?${query}` : '/login'
}
