/** @jsxImportSource preact */
/**
 * @module ui/app/main
 * Entry of the browser bundle: applies the stored theme, then renders the app into `#app`.
 */
import { render } from 'preact'
import './styles.css'
import 'virtual:ansi-palette.css'
import { App } from './App.js'
import { applyTheme, storedTheme } from './theme.js'

applyTheme(storedTheme())
render(<App />, document.getElementById('app')!)
