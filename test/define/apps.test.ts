// MCP Apps in definitions, on their own and through the tool, resource and registry checks: a
// tool's `ui` (a ui:// URI, or the app in place) and `visibility`; a UI resource's _meta.ui
// options; the wire each audience gets; every mistake a registration error naming what to change.
import t from 'tap'
import { Registry } from '../../lib/define/registry.js'
import { compileTool } from '../../lib/define/tool.js'
import type { ToolDefinition } from '../../lib/define/tool-definition.js'
import { compileResource, type ResourceDefinition } from '../../lib/define/resource.js'
import { UI_TTL, inlineUiResource, isUiUri, uiMetaProblem, visibilityOf } from '../../lib/define/apps.js'

const HTML = '<!doctype html><html><head></head><body>app</body></html>'
const fail = (message: string): never => { throw new Error(message) }
const tool = (extra: Partial<ToolDefinition>): ToolDefinition => ({ name: 'show', execute: () => 'shown', ...extra })
const uiResource = (extra: Record<string, unknown> = {}): ResourceDefinition => ({ uri: 'ui://s/app', name: 'app', read: () => HTML, ...extra }) as ResourceDefinition

t.test('the _meta.ui checks', async (t) => {
  t.equal(uiMetaProblem('csp', { connectDomains: ['https://api.example.com'], resourceDomains: undefined }), undefined)
  t.match(uiMetaProblem('csp', 'none'), /'csp' must be an object/)
  t.match(uiMetaProblem('csp', { connect: [] }), /unknown 'csp' key 'connect'; known keys are connectDomains/)
  t.match(uiMetaProblem('csp', { frameDomains: [''] }), /'csp.frameDomains' must be an array of origins/)
  t.match(uiMetaProblem('csp', { frameDomains: 'https://a' }), /'csp.frameDomains' must be an array/)
  t.equal(uiMetaProblem('permissions', { camera: {}, microphone: undefined }), undefined)
  t.match(uiMetaProblem('permissions', true), /'permissions' must be an object such as \{ camera: \{\} \}/)
  t.match(uiMetaProblem('permissions', { bluetooth: {} }), /unknown permission 'bluetooth'/)
  t.match(uiMetaProblem('permissions', { camera: true }), /'permissions.camera' must be \{\}/)
  t.match(uiMetaProblem('permissions', { camera: { front: true } }), /'permissions.camera' must be \{\}/)
  t.equal(uiMetaProblem('domain', 'abc.example.com'), undefined)
  t.match(uiMetaProblem('domain', ''), /'domain' must be a non-empty string/)
  t.equal(uiMetaProblem('prefersBorder', false), undefined)
  t.match(uiMetaProblem('prefersBorder', 'yes'), /'prefersBorder' must be a boolean/)
})

t.test('visibility, and what a UI URI is', async (t) => {
  t.same(visibilityOf(undefined, fail), ['model', 'app'], 'the default')
  t.same(visibilityOf(['app'], fail), ['app'])
  t.same(visibilityOf(['model'], fail), ['model'])
  for (const wrong of [[], ['agent'], ['app', 'app'], 'app', null, () => ['app']]) {
    t.throws(() => visibilityOf(wrong, fail), /'visibility' must be \['model', 'app'\] \(the default\), \['app'\]/, JSON.stringify(wrong))
  }
  t.ok(isUiUri('ui://x'))
  t.notOk(isUiUri('ui://'), 'a scheme alone names nothing')
  t.notOk(isUiUri('https://x'))
  t.notOk(isUiUri(3))
})

t.test('an inline ui becomes a resource definition', async (t) => {
  const read = (): string => HTML
  const made = inlineUiResource({ uri: 'ui://s/a', html: HTML, csp: { connectDomains: [] }, prefersBorder: true, ttl: 5, cacheScope: 'private', title: 'A' }, fail)
  t.match(made, { uri: 'ui://s/a', name: 'ui://s/a', mimeType: 'text/html;profile=mcp-app', csp: { connectDomains: [] }, prefersBorder: true, ttl: 5, cacheScope: 'private', title: 'A' })
  t.equal((made.read as () => string)(), HTML, 'html is what read returns')
  t.equal(inlineUiResource({ uri: 'ui://s/a', name: 'Named', read }, fail).read, read, 'read is kept')
  t.throws(() => inlineUiResource({ uri: 'ui://s/a', html: HTML, sandbox: true }, fail), /unknown 'ui' option 'sandbox'; known options are uri, name/)
  t.throws(() => inlineUiResource({ uri: 'https://s/a', html: HTML }, fail), /'ui.uri' must be a ui:\/\/ URI/)
  t.throws(() => inlineUiResource({ html: HTML }, fail), /'ui.uri' must be a ui:\/\/ URI .* got undefined/)
  t.throws(() => inlineUiResource({ uri: 'ui://s/a' }, fail), /exactly one of 'html' .* or 'read'/)
  t.throws(() => inlineUiResource({ uri: 'ui://s/a', html: HTML, read }, fail), /exactly one of 'html'/)
  t.throws(() => inlineUiResource({ uri: 'ui://s/a', html: '<p>hi</p>' }, fail), /'ui.html' must be a whole HTML5 document, starting with <!doctype html>, got "<p>hi<\/p>"/)
  t.throws(() => inlineUiResource({ uri: 'ui://s/a', html: 42 }, fail), /'ui.html' must be a whole HTML5 document.*got number/)
  t.throws(() => inlineUiResource({ uri: 'ui://s/a', read: 'file.html' }, fail), /'ui.read' must be a function/)
})

t.test("a tool's ui and visibility: the wire with MCP Apps, and without", async (t) => {
  const shown = compileTool(tool({ ui: 'ui://s/app', meta: { owner: 'me' } }))
  t.same(shown.wire.modern._meta, { owner: 'me', ui: { resourceUri: 'ui://s/app', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://s/app' }, 'merged with its own meta')
  t.same(shown.wire.legacy._meta, shown.wire.modern._meta, 'the same in both eras')
  t.same(shown.withoutApps?.modern._meta, { owner: 'me' }, 'a client without the extension gets the plain tool')
  t.same(shown.ui, { resourceUri: 'ui://s/app', inline: undefined })
  t.equal(shown.appOnly, false)

  const appOnly = compileTool(tool({ ui: 'ui://s/app', visibility: ['app'] }))
  t.equal(appOnly.appOnly, true)
  t.equal(appOnly.withoutApps, null, 'not listed without the extension')
  t.same(appOnly.wire.modern._meta, { ui: { resourceUri: 'ui://s/app', visibility: ['app'] }, 'ui/resourceUri': 'ui://s/app' })

  const noApp = compileTool(tool({ visibility: ['model'] }))
  t.same(noApp.wire.modern._meta, { ui: { visibility: ['model'] } }, 'visibility without an app')
  t.equal(noApp.ui, undefined)
  t.equal(noApp.withoutApps?.modern._meta, undefined)

  const plain = compileTool(tool({}))
  t.equal(plain.withoutApps, undefined, 'a tool without MCP Apps is the same for everyone')
  t.equal(plain.appOnly, false)

  const inline = compileTool(tool({ ui: { uri: 'ui://s/inline', html: HTML } }))
  t.equal(inline.ui?.resourceUri, 'ui://s/inline')
  t.match(inline.ui?.inline, { uri: 'ui://s/inline', mimeType: 'text/html;profile=mcp-app' })

  t.throws(() => compileTool(tool({ ui: 'https://s/app' })), { code: 'SAKE_ERR_INVALID_TOOL', message: /^tool 'show': 'ui' must be the URI of a ui:\/\/ resource/ })
  t.throws(() => compileTool(tool({ ui: 7 as never })), /tool 'show': 'ui' must be the URI of a ui:\/\/ resource or \{ uri, html \}.*got number/)
  t.throws(() => compileTool(tool({ ui: { uri: 'ui://s/a' } as never })), /tool 'show': 'ui' needs exactly one of 'html'/)
  t.throws(() => compileTool(tool({ visibility: ['agent'] as never })), /tool 'show': 'visibility' must be/)
  t.throws(() => compileTool(tool({ ui: 'ui://s/app', meta: { ui: { resourceUri: 'ui://s/app' } } })), /tool 'show': give the app as 'ui' and 'visibility', not in 'meta'/)
  t.throws(() => compileTool(tool({ visibility: ['app'], meta: { 'ui/resourceUri': 'ui://s/app' } })), /not in 'meta'/)
  // the form other libraries teach (_meta.ui by hand) on a tool with neither option: refused too
  t.throws(() => compileTool(tool({ meta: { ui: { resourceUri: 'ui://s/app' } } })), /tool 'show': give the app as 'ui' and 'visibility', not in 'meta'/)
  t.throws(() => compileTool(tool({ meta: { 'ui/resourceUri': 'ui://s/app' } })), /not in 'meta'/)
})

t.test('a ui:// resource: its type, its _meta.ui options, its cache defaults', async (t) => {
  const app = compileResource(uiResource({ csp: { connectDomains: ['https://api.example.com'] }, permissions: { clipboardWrite: {} }, domain: 'a.example', prefersBorder: false, meta: { version: 2 } }))
  const ui = { csp: { connectDomains: ['https://api.example.com'] }, permissions: { clipboardWrite: {} }, domain: 'a.example', prefersBorder: false }
  t.same(app.ui, { meta: ui })
  t.same(app.wire.modern, { uri: 'ui://s/app', name: 'app', mimeType: 'text/html;profile=mcp-app', _meta: { version: 2, ui } }, 'the list entry has _meta.ui, merged with its own meta')
  t.equal(app.withoutApps, null, 'not listed to a client without the extension')
  t.equal(app.ttl, UI_TTL, 'a day by default')
  t.equal(app.cacheScope, 'public')

  const bare = compileResource(uiResource({ ttl: 1000, cacheScope: 'private', mimeType: 'text/html;profile=mcp-app' }))
  t.same(bare.ui, { meta: undefined })
  t.same(bare.wire.modern, { uri: 'ui://s/app', name: 'app', mimeType: 'text/html;profile=mcp-app' })
  t.equal(bare.ttl, 1000, 'overridable')
  t.equal(bare.cacheScope, 'private', 'overridable')

  const plain = compileResource({ uri: 'file:///a', name: 'a', read: () => 'a', cacheScope: 'public' })
  t.equal(plain.ui, undefined)
  t.equal(plain.withoutApps, undefined)
  t.equal(plain.ttl, undefined)
  t.equal(plain.cacheScope, 'public', 'any resource may set its cacheScope')

  t.throws(() => compileResource({ uri: 'file:///a', name: 'a', read: () => 'a', csp: {} } as never), { code: 'SAKE_ERR_INVALID_RESOURCE', message: /resource 'file:\/\/\/a': 'csp' is MCP Apps metadata, for a UI resource: give the resource a ui:\/\/ URI/ })
  t.throws(() => compileResource(uiResource({ mimeType: 'text/html' })), /resource 'ui:\/\/s\/app': a ui:\/\/ resource is an MCP App's HTML: its 'mimeType' is "text\/html;profile=mcp-app"/)
  t.throws(() => compileResource(uiResource({ meta: { ui: { prefersBorder: true } } })), /give the app's _meta.ui as the options csp, permissions, domain and prefersBorder, not in 'meta'/)
  t.throws(() => compileResource(uiResource({ prefersBorder: 'yes' })), /resource 'ui:\/\/s\/app': 'prefersBorder' must be a boolean/)
  t.throws(() => compileResource(uiResource({ cacheScope: 'shared' })), /'cacheScope' must be 'public' or 'private', got "shared"/)
  t.throws(() => compileResource(uiResource({ cacheScope: () => 'public' })), /'cacheScope' must be 'public' or 'private', got function/)
  t.throws(() => compileResource(uiResource({ csp: { connectDomains: [1n] } })), /'csp.connectDomains' must be an array of origins/)
})

t.test('the registry: an inline ui registers its resource, and every ui must name one when sealed', async (t) => {
  const reg = new Registry()
  const app = { uri: 'ui://s/app', html: HTML, prefersBorder: true }
  reg.addTool(tool({ ui: app }))
  t.equal(reg.resources.get('ui://s/app')?.ui?.meta?.prefersBorder, true, 'the inline ui is a resource now')
  reg.addTool(tool({ name: 'again', ui: app, visibility: ['app'] }))
  t.equal(reg.resources.size, 1, 'the same ui object on a second tool is the same resource')
  reg.addTool(tool({ name: 'by-uri', ui: 'ui://s/app' }))
  t.throws(() => reg.addTool(tool({ name: 'other', ui: { uri: 'ui://s/app', html: HTML } })), {
    code: 'SAKE_ERR_INVALID_TOOL',
    message: /^tool 'other': its 'ui' defines the resource 'ui:\/\/s\/app', which is already registered; to share one app, give the other tools the same 'ui' object, or its URI as a string/
  })
  t.throws(() => reg.addTool(tool({ name: 'bad', ui: { uri: 'ui://s/bad', html: HTML, csp: 'none' } as never })), {
    code: 'SAKE_ERR_INVALID_TOOL',
    message: /^tool 'bad': its 'ui' resource 'ui:\/\/s\/bad': 'csp' must be an object/
  })
  t.notOk(reg.tools.has('bad'), 'nothing of a refused tool is kept')
  t.ok(reg.servesApps())
  reg.seal()
  t.equal(reg.sealed, true)

  const all = new Registry()
  t.throws(() => all.all([tool({ name: 'a', ui: { uri: 'ui://s/a', html: HTML } }), tool({ name: 'a' })], (one) => all.addTool(one)), { code: 'SAKE_ERR_DUPLICATE_TOOL' })
  t.equal(all.resources.size, 0, "a failed array takes the inline ui's resource back too")
  all.addTool(tool({ name: 'a', ui: { uri: 'ui://s/a', html: HTML } }))
  t.equal(all.resources.size, 1, 'and the same definition registers again')

  const missing = new Registry()
  missing.addTool(tool({ ui: 'ui://s/nowhere' }))
  t.throws(() => missing.seal(), {
    code: 'SAKE_ERR_INVALID_TOOL',
    message: /^tool 'show': its 'ui' names the resource 'ui:\/\/s\/nowhere', which is not registered; register it with registerResource/
  })
  t.equal(missing.sealed, false, 'a failed seal leaves the registry open')
  missing.addResource(uiResource({ uri: 'ui://s/nowhere' }))
  missing.seal()
  t.equal(missing.sealed, true)

  const none = new Registry()
  none.addTool(tool({}))
  none.addResource({ uri: 'file:///a', name: 'a', read: () => 'a' })
  t.notOk(none.servesApps(), 'nothing of MCP Apps here')
  const visibilityOnly = new Registry()
  visibilityOnly.addTool(tool({ visibility: ['model', 'app'] }))
  t.ok(visibilityOnly.servesApps(), 'visibility alone counts')
  const resourceOnly = new Registry()
  resourceOnly.addResource(uiResource())
  t.ok(resourceOnly.servesApps(), 'a UI resource alone counts')
})
