// Type tests of MCP Apps: a tool's `ui` (a URI, or the app in place) and `visibility`, a UI
// resource's _meta.ui options, and `withText` checked against `output`. Compiled by
// `npm run test:types` against the built package; each `@ts-expect-error` must stay an error.
import Fastify from 'fastify'
import sake, { Type, defineTool, defineResource, withText, withMeta, APP_MIME_TYPE, APPS_EXTENSION, type InlineUi, type Visibility, type UiResourceMeta } from 'fastify-sake'

const app = Fastify()
await app.register(sake, { name: 'apps', version: '1.0.0' })

const HTML = '<!doctype html><html><body>app</body></html>'
const board: InlineUi = { uri: 'ui://apps/board', html: HTML, csp: { connectDomains: ['https://api.example.com'] }, permissions: { clipboardWrite: {} }, domain: 'board.example', prefersBorder: true, ttl: 60_000, cacheScope: 'public' }

app.registerTool({
  name: 'board',
  args: { n: Type.Integer() },
  output: { n: Type.Integer() },
  ui: board,
  execute: ({ n }) => withText({ n }, `n is ${n}`)
})
app.registerTool({ name: 'refresh', ui: 'ui://apps/board', visibility: ['app'], execute: () => 'fresh' })
app.registerTool({ name: 'read_from_file', ui: { uri: 'ui://apps/file', read: async () => HTML }, execute: () => 'x' })
export const tool = defineTool({ name: 'defined', visibility: ['model', 'app'], output: { ok: Type.Boolean() }, execute: () => withMeta(withText({ ok: true }, 'ok'), { at: 1 }) })

// @ts-expect-error visibility names 'model' and 'app' only
app.registerTool({ name: 'x', visibility: ['agent'], execute: () => 'x' })
// @ts-expect-error the app in place needs its uri
app.registerTool({ name: 'x', ui: { html: HTML }, execute: () => 'x' })
// @ts-expect-error csp lists are arrays of origins
app.registerTool({ name: 'x', ui: { uri: 'ui://a', html: HTML, csp: { connectDomains: 'https://a' } }, execute: () => 'x' })
// @ts-expect-error a permission is asked for with {}
app.registerTool({ name: 'x', ui: { uri: 'ui://a', html: HTML, permissions: { camera: true } }, execute: () => 'x' })
// @ts-expect-error withText's value is checked against output
app.registerTool({ name: 'x', output: { n: Type.Integer() }, execute: () => withText({ n: 'one' }, 'one') })
// @ts-expect-error withText takes the text as a string
withText({ n: 1 }, 1)

app.registerResource({ uri: 'ui://apps/own', name: 'own', read: () => HTML, csp: { resourceDomains: ['https://cdn.example.com'] }, prefersBorder: false, cacheScope: 'private' })
export const resource = defineResource({ uri: 'ui://apps/defined', name: 'defined', read: () => HTML, domain: 'x.example' })
// @ts-expect-error cacheScope is 'public' or 'private'
app.registerResource({ uri: 'file:///a', name: 'a', read: () => 'a', cacheScope: 'shared' })

const visibility: Visibility[] = ['app']
const meta: UiResourceMeta = { prefersBorder: true }
const mime: 'text/html;profile=mcp-app' = APP_MIME_TYPE
const id: 'io.modelcontextprotocol/ui' = APPS_EXTENSION
void visibility
void meta
void mime
void id
