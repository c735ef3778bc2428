/** @jsxImportSource preact */
/** @module ui/app/pages/NotFoundPage */
import { linkClick } from '../router.js'

export function NotFoundPage() {
  return (
    <main id="main" tabIndex={-1} class="page narrow">
      <h1>Page not found</h1>
      <p>
        <a href="/" onClick={linkClick}>
          Back to the jobs
        </a>
      </p>
    </main>
  )
}
