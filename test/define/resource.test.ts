// Resource definitions at registration: every rule refused with SAKE_ERR_INVALID_RESOURCE and a
// message naming the resource, duplicates, registering after ready, the `resources` option, the
// app.mcp view, URI template matching, and the shaping of what read() returns.
import t from 'tap'
import { defineResource, SakeResourceDefinitionError, SakeDuplicateResourceError, SakeRegisterAfterReadyError, SakeOptionError } from '../../lib/index.js'
import { parseUriTemplate, type UriTemplate } from '../../lib/define/uri-template.js'
import { compileResource, shapeContents } from '../../lib/define/resource.js'
import { build } from '../helpers/app.js'

const read = (): string => 'x'

t.test('invalid definitions: SAKE_ERR_INVALID_RESOURCE naming the resource and the rule', async (t) => {
  const cases: Array<[unknown, string]> = [
    [null, 'a resource definition must be an object, got null'],
    [[], 'a resource definition must be an object, got an array'],
    [{ name: 'n', read }, "resource 'n': give exactly one of 'uri' (a fixed resource) or 'uriTemplate'"],
    [{ uri: 'a://b', uriTemplate: 'a://{b}', name: 'n', read }, "resource 'a://b': give exactly one of 'uri'"],
    [{ uri: 'a://b', name: 'n', read, descripton: 'typo' }, "resource 'a://b': unknown option 'descripton' (did you mean 'description'?); known options are uri, uriTemplate"],
    [{ uri: 'a://b', read }, "resource 'a://b': 'name' is required: a non-empty string, got nothing"],
    [{ uri: 'a://b', name: '', read }, "resource 'a://b': 'name' is required: a non-empty string, got \"\""],
    [{ uri: 'a://b', name: 'n', title: 1, read }, "resource 'a://b': 'title' must be a string, got number"],
    [{ uri: 'a://b', name: 'n', mimeType: [], read }, "resource 'a://b': 'mimeType' must be a string, got an array"],
    [{ uri: 'a://b', name: 'n' }, "resource 'a://b': 'read' must be a function (uri, vars, ctx) => contents, got undefined"],
    [{ uri: 'a://b', name: 'n', read, ttl: -1 }, "resource 'a://b': 'ttl' must be a non-negative integer (milliseconds), got -1"],
    [{ uri: 'a://b', name: 'n', read, ttl: '5m' }, "resource 'a://b': 'ttl' must be a non-negative integer (milliseconds), got \"5m\""],
    [{ uri: 'a://b', name: 'n', read, ttl: () => 1 }, "resource 'a://b': 'ttl' must be a non-negative integer (milliseconds), got function"],
    [{ uri: 'a://b', name: 'n', read, size: () => 1 }, "resource 'a://b': 'size' must be a non-negative integer (bytes), got function"],
    [{ uri: 'a://b', name: 'n', read, meta: [] }, "resource 'a://b': 'meta' must be an object (sent as _meta), got an array"],
    [{ uri: 'a://b', name: 'n', read, icons: [{}] }, "resource 'a://b': 'icons' must be an array of { src, mimeType?, sizes?, theme? }: icons[0].src"],
    [{ uri: 'a://b', name: 'n', read, annotations: 'x' }, "resource 'a://b': 'annotations' must be an object { audience?, priority?, lastModified? }, got string"],
    [{ uri: 'a://b', name: 'n', read, annotations: { audience: ['robot'] } }, "resource 'a://b': 'annotations.audience' must be an array of 'user' and 'assistant'"],
    [{ uri: 'a://b', name: 'n', read, annotations: { audience: 'user' } }, "resource 'a://b': 'annotations.audience' must be an array"],
    [{ uri: 'a://b', name: 'n', read, annotations: { priority: 2 } }, "resource 'a://b': 'annotations.priority' must be a number from 0 to 1, got 2"],
    [{ uri: 'a://b', name: 'n', read, annotations: { priority: '1' } }, "resource 'a://b': 'annotations.priority' must be a number from 0 to 1"],
    [{ uri: 'a://b', name: 'n', read, annotations: { lastModified: 'yesterday' } }, "resource 'a://b': 'annotations.lastModified' must be an ISO 8601 timestamp"],
    [{ uri: 'a://b', name: 'n', read, annotations: { lastModified: 5 } }, "resource 'a://b': 'annotations.lastModified' must be an ISO 8601 timestamp"],
    [{ uri: 'a://b', name: 'n', read, annotations: { importance: 1 } }, "resource 'a://b': unknown annotation 'importance'"],
    [{ uri: 'no-scheme', name: 'n', read }, "resource 'no-scheme': 'uri' must be an absolute URI with a scheme"],
    [{ uri: 5, name: 'n', read }, "resource '5': 'uri' must be an absolute URI with a scheme"],
    [{ uri: 'a://b', name: 'n', read, complete: () => [] }, "resource 'a://b': 'complete' completes the variables of a 'uriTemplate'; a fixed resource has none"],
    [{ uri: 'a://b', name: 'n', read, size: 1.5 }, "resource 'a://b': 'size' must be a non-negative integer (bytes), got 1.5"],
    [{ uri: 'a://b', name: 'n', read, size: null }, "resource 'a://b': 'size' must be a non-negative integer (bytes), got null"],
    [{ uri: 'a://b', name: 'n', read, meta: { n: 1n } }, "resource 'a://b': its definition cannot be sent as JSON"],
    [{ uriTemplate: 'users/{id}', name: 'n', read }, "resource template 'users/{id}': 'uriTemplate' must be a URI template with a scheme"],
    [{ uriTemplate: 'a://{b', name: 'n', read }, "resource template 'a://{b': 'uriTemplate' unbalanced '{' or '}'"],
    [{ uriTemplate: 'a://b}/{c}', name: 'n', read }, "resource template 'a://b}/{c}': 'uriTemplate' unbalanced '{' or '}'"],
    [{ uriTemplate: 'a://{?q}', name: 'n', read }, "resource template 'a://{?q}': 'uriTemplate' expression {?q} is not supported"],
    [{ uriTemplate: 'a://{x,y}', name: 'n', read }, "resource template 'a://{x,y}': 'uriTemplate' expression {x,y} is not supported"],
    [{ uriTemplate: 'a://{x}/{x}', name: 'n', read }, "resource template 'a://{x}/{x}': 'uriTemplate' variable 'x' appears twice"],
    [{ uriTemplate: 'a://static', name: 'n', read }, "resource template 'a://static': 'uriTemplate' has no {variable}; use 'uri' for a fixed resource"],
    [{ uriTemplate: 'a://{x}', name: 'n', read, size: 1 }, "resource template 'a://{x}': 'size' belongs to a fixed resource"],
    [{ uriTemplate: 'a://{x}', name: 'n', read, complete: 'yes' }, "resource template 'a://{x}': 'complete' must be a function (variable, partial, ctx) => values, got string"]
  ]
  for (const [def, message] of cases) {
    const err = t.throws(() => compileResource(def as any), SakeResourceDefinitionError) as SakeResourceDefinitionError
    t.equal(err.code, 'SAKE_ERR_INVALID_RESOURCE')
    t.ok(err.message.startsWith(message), `${err.message}\n  starts with ${message}`)
  }
})

t.test('valid definitions compile; undefined optional fields are fine', async (t) => {
  const fixed = compileResource({ uri: 'a://b', name: 'n', read, title: undefined, annotations: { priority: undefined, audience: ['user', 'assistant'], lastModified: '2025-01-12T15:00:58Z' } })
  t.same(fixed.wire.modern, { uri: 'a://b', name: 'n', annotations: { audience: ['user', 'assistant'], lastModified: '2025-01-12T15:00:58Z' } })
  t.equal(fixed.wire.modern, fixed.wire.legacy, 'one object for both eras')
  t.ok(Object.isFrozen(fixed.wire.modern.annotations))
  t.equal(fixed.template, undefined)
  const template = compileResource({ uriTemplate: 'a://{x}', name: 'n', read, complete: () => [] })
  t.same(template.template!.variables, ['x'])
  t.equal(template.key, 'a://{x}')
})

t.test('URI templates', async (t) => {
  const parse = (template: string): UriTemplate => parseUriTemplate(template) as UriTemplate
  const users = parse('users://{org}/{id}/profile')
  t.same(users.variables, ['org', 'id'])
  t.same(users.match('users://acme/42/profile'), { org: 'acme', id: '42' })
  t.equal(users.match('users://acme/42/profile/x'), undefined, 'anchored at the end')
  t.equal(users.match('xusers://acme/42/profile'), undefined, 'anchored at the start')
  t.equal(users.match('users:///42/profile'), undefined, 'a variable needs one character or more')
  t.equal(users.match('users://a/b/c/profile'), undefined, "{var} never matches '/'")
  t.same(users.match('users://a%2Fb/1/profile'), { org: 'a/b', id: '1' }, 'decoded after matching')
  t.equal(users.match('users://%ZZ/1/profile'), undefined, 'malformed percent-encoding matches nothing')
  t.same(parse('file:///{+path}').match('file:///a/b/c.txt'), { path: 'a/b/c.txt' })
  t.same(parse('q://x.y?a=(1)|[2]*+$^{v}').match('q://x.y?a=(1)|[2]*+$^z'), { v: 'z' }, 'literal parts are matched literally')
  t.equal(parse('q://x.y/{v}').match('q://xzy/1'), undefined, "a literal '.' is not a wildcard")
  t.same(parse('a://{x.y}/{_1}/{%41}').variables, ['x.y', '_1', '%41'], 'RFC 6570 varnames')
  t.equal(parseUriTemplate('a://{x..y}'), "expression {x..y} is not supported; use {name} (any characters but '/') or {+name} (any characters), where name is letters, digits and '_'")
  t.equal(parseUriTemplate('a://{}'), "expression {} is not supported; use {name} (any characters but '/') or {+name} (any characters), where name is letters, digits and '_'")
  t.same(parse('a://{x}\n{y}').match('a://1\n2'), { x: '1', y: '2' })
})

t.test('shapeContents', async (t) => {
  t.same(shapeContents('hi', 'a://b', 'text/plain'), [{ uri: 'a://b', mimeType: 'text/plain', text: 'hi' }])
  t.same(shapeContents(Buffer.from('hi'), 'a://b', undefined), [{ uri: 'a://b', blob: 'aGk=' }])
  const view = new Uint8Array([0, 104, 105, 0]).subarray(1, 3)
  t.same(shapeContents(view, 'a://b', undefined), [{ uri: 'a://b', blob: 'aGk=' }], 'a view encodes its own bytes only')
  t.same(shapeContents({ blob: view, mimeType: 'x/y', uri: 'a://c' }, 'a://b', 'text/plain'), [{ uri: 'a://c', mimeType: 'x/y', blob: 'aGk=' }], 'the item overrides uri and mimeType')
  const bad: Array<[unknown, RegExp]> = [
    [5, /^the value is number; read\(\) returns a string, bytes, \{ text \} or \{ blob \}, or an array of them$/],
    [{}, /^the value is object/],
    [{ text: 'a', blob: 'b' }, /^the value is object/],
    [[null], /^item 0 is null/],
    [{ text: 'a', uri: 5 }, /^the value: 'uri' must be a string$/],
    [[{ text: 'a', mimeType: 5 }], /^item 0: 'mimeType' must be a string$/],
    [{ text: 'a', _meta: 'x' }, /^the value: '_meta' must be an object$/]
  ]
  for (const [value, message] of bad) t.throws(() => shapeContents(value, 'a://b', undefined), { name: 'TypeError', message })
})

t.test('registerResource: one or an array, duplicates refused, closed once ready', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerResource({ uri: 'a://one', name: 'one', read })
  app.registerResource([{ uri: 'a://two', name: 'two', read }, { uriTemplate: 'a://{x}', name: 'x', read }])
  app.registerResource({ uri: 'a://{x}', name: 'a fixed URI may look like a template', read })
  const dup = t.throws(() => app.registerResource({ uri: 'a://one', name: 'again', read }), SakeDuplicateResourceError) as SakeDuplicateResourceError
  t.equal(dup.code, 'SAKE_ERR_DUPLICATE_RESOURCE')
  t.equal(dup.message, "a resource 'a://one' is already registered on this MCP server; resource URIs and URI templates must be unique")
  t.throws(() => app.registerResource({ uriTemplate: 'a://{x}', name: 'again', read }), { code: 'SAKE_ERR_DUPLICATE_RESOURCE' })
  t.throws(() => app.registerResource({ uri: 'bad', name: 'n', read }), { code: 'SAKE_ERR_INVALID_RESOURCE' })

  t.same([...app.mcp.resources.keys()], ['a://one', 'a://two', 'a://{x}'])
  t.same([...app.mcp.templates.keys()], ['a://{x}'])
  t.same(app.mcp.resources.get('a://one'), { uri: 'a://one', name: 'one' })
  t.same(app.mcp.templates.get('a://{x}'), { uriTemplate: 'a://{x}', name: 'x' })
  t.equal(app.mcp.resources.size, 3)
  t.ok(app.mcp.templates.has('a://{x}'))
  t.same([...app.mcp.templates.values()].map((r) => r.name), ['x'])
  t.same([...app.mcp.templates].map(([k]) => k), ['a://{x}'])
  const seen: string[] = []
  app.mcp.resources.forEach((value, key, map) => { seen.push(`${key}=${String(value.name)}:${String(map === app.mcp.resources)}`) })
  t.same(seen, ['a://one=one:true', 'a://two=two:true', 'a://{x}=a fixed URI may look like a template:true'])
  t.throws(() => { (app.mcp.resources.get('a://one') as any).name = 'evil' }, TypeError, 'frozen')

  await app.ready()
  const late = t.throws(() => app.registerResource({ uri: 'a://late', name: 'late', read }), SakeRegisterAfterReadyError) as SakeRegisterAfterReadyError
  t.equal(late.code, 'SAKE_ERR_REGISTER_AFTER_READY')
  t.match(late.message, /^cannot register resource 'a:\/\/late' after the server is ready/)
  t.throws(() => app.registerResource({ uriTemplate: 'a://{late}', name: 'late', read }), { message: /^cannot register resource 'a:\/\/\{late\}'/ })
  t.throws(() => app.registerResource(null as any), { message: /^cannot register resource 'undefined'/ })
  t.throws(() => app.registerResource({ name: 'nameless' } as any), { message: /^cannot register resource 'nameless'/ })
})

t.test('the resources option, and defineResource', async (t) => {
  const profile = defineResource({ uriTemplate: 'users://{id}', name: 'profile', read: (_uri, { id }) => id })
  const config = defineResource({ uri: 'config://app', name: 'config', read })
  const app = await build({ resources: [profile, config] })
  t.teardown(() => app.close())
  t.ok(app.mcp.templates.has('users://{id}'))
  t.ok(app.mcp.resources.has('config://app'))
  await t.rejects(build({ resources: 'x' as any }), SakeOptionError)
  await t.rejects(build({ resources: 'x' as any }), { message: "fastify-sake: option 'resources' must be an array of resource definitions, got \"x\" (string)" })
  await t.rejects(build({ resources: [{ uri: 'x', name: 'n', read }] }), { code: 'SAKE_ERR_INVALID_RESOURCE' })
})

t.test('config: kept on the compiled resource and never sent', async (t) => {
  t.throws(() => compileResource({ uri: 'a://c', name: 'c', read: () => 'x', config: 1 as never }), { message: "resource 'a://c': 'config' must be an object (your settings, read by hooks on request.mcp.config), got number" })
  const resource = compileResource({ uri: 'a://c', name: 'c', read: () => 'x', config: { tier: 'free' } })
  t.same(resource.config, { tier: 'free' })
  t.notOk('config' in resource.wire.modern)
})
