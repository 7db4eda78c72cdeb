// MCP Apps in the example: `counter` shows its result in a small app (apps/counter.html), and the
// app's button calls `counter_increment`, a tool only the app calls (visibility ['app']), which a
// client without MCP Apps never sees. The app is one HTML document with the App SDK of
// @modelcontextprotocol/ext-apps inlined, read from node_modules once at start: nothing is fetched
// when it runs, so it works under the host's default CSP (no connect-src, no script origins).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Type, defineTool, withText } from 'fastify-sake'

const require = createRequire(import.meta.url)

/**
 * The SDK's self-contained build (`app-with-deps`) as a script to inline: its closing
 * `export { … as App, … }` becomes a `const App = …`, since an inline module exports nothing.
 */
function appSdk () {
  const bundle = readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8')
  const exported = /export\s*\{([^{}]*)\}\s*;?\s*$/.exec(bundle)
  const local = exported?.[1].split(',').map((entry) => entry.trim().split(/\s+as\s+/)).find(([, name]) => name === 'App')?.[0]
  if (local === undefined) throw new Error('example-server: @modelcontextprotocol/ext-apps/app-with-deps no longer ends with export { … as App }; update apps.js')
  return `${bundle.slice(0, exported.index)}\nconst App = ${local}\n`
}

const template = readFileSync(new URL('./apps/counter.html', import.meta.url), 'utf8')
/** The counter app's HTML, built once. */
export const counterHtml = template.replace('/*SDK*/', () => appSdk())

const COUNTER_APP = 'ui://example-server/counter'
const Count = { count: Type.Integer() }
const said = (count) => `The counter is at ${count}.`

export const counter = defineTool({
  name: 'counter',
  title: 'Counter',
  description: 'Shows a counter starting at `start` (default 0); hosts with MCP Apps show it as an app with a +1 button',
  annotations: { readOnly: true, idempotent: true, openWorld: false },
  args: { start: Type.Optional(Type.Integer({ description: 'Where the counter starts' })) },
  output: Count,
  // the app in place: registers ui://example-server/counter (text/html;profile=mcp-app) for it
  ui: { uri: COUNTER_APP, name: 'Counter app', description: 'A counter with a +1 button', html: counterHtml, prefersBorder: true },
  // the text is what the model and clients without the app read; the app renders structuredContent
  execute: ({ start = 0 }) => withText({ count: start }, said(start))
})

export const counterIncrement = defineTool({
  name: 'counter_increment',
  description: 'Adds one to the counter shown by the counter app (called by the app, not the model)',
  annotations: { readOnly: true, idempotent: true, openWorld: false },
  args: { count: Type.Integer({ description: 'The count shown now' }) },
  output: Count,
  ui: COUNTER_APP,
  visibility: ['app'],
  execute: ({ count }) => withText({ count: count + 1 }, said(count + 1))
})
