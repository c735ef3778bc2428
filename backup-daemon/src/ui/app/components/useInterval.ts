/**
 * @module ui/app/components/useInterval
 * Calls `callback` now and every `ms` while the component is mounted and the tab is visible.
 */
import { useEffect, useRef } from 'preact/hooks'

export function useInterval(callback: () => void, ms: number): void {
  const saved = useRef(callback)
  saved.current = callback
  useEffect(() => {
    saved.current()
    const timer = setInterval(() => {
      if (document.visibilityState !== 'hidden') saved.current()
    }, ms)
    const onVisible = () => {
      if (document.visibilityState === 'visible') saved.current()
    }
    document.addEventListener('visibilitychange', onVisible)
    return () => {
      clearInterval(timer)
      document.removeEventListener('visibilitychange', onVisible)
    }
  }, [ms])
}
