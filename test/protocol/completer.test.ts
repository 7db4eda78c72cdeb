// What completes a target: the completer of each kind of target (names, bound callback), the
// checks and the 100-value cap on what a callback returns, and when its values are the whole list
// a form may offer as its only choices. Over the wire: test/protocol/methods/completion.test.ts
// and test/protocol/input/client-input.test.ts.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { compilePrompt } from '../../lib/define/prompt.js'
import { compileResource } from '../../lib/define/resource.js'
import { compileTool } from '../../lib/define/tool.js'
import { compileFilesSkill } from '../../lib/define/skill.js'
import { completerOf, completionOf, wholeList } from '../../lib/protocol/completer.js'

t.test('the completer of each target', async (t) => {
  const tool = compileTool({ name: 'deploy', args: { service: Type.String(), env: Type.String() }, execute: () => 'x', complete (arg) { return [arg, this.name] } })
  const completer = completerOf(tool)
  t.same([completer.what, completer.names], ["tool 'deploy'", ['service', 'env']])
  t.same(await completer.complete!('env', '', {} as any), ['env', 'deploy'], 'bound to its definition')
  t.equal(completerOf(compileTool({ name: 'plain', execute: () => 'x' })).complete, undefined)
  const prompt = completerOf(compilePrompt({ name: 'review', args: { code: Type.String() }, get: () => 'x', complete: () => ['c'] }))
  t.same([prompt.what, prompt.names], ["prompt 'review'", ['code']])
  const template = compileResource({ uriTemplate: 'users://{org}/{id}', name: 'user', read: () => 'u', complete: () => ['u'] })
  t.same([completerOf(template).what, completerOf(template).names], ["resource template 'users://{org}/{id}'", ['org', 'id']])
  // a skill and its folder have nothing to complete (a dynamic skill's read may still ask a question)
  const skill = compileFilesSkill({ path: 's', files: { 'SKILL.md': '---\nname: s\ndescription: S\n---\n' } }, new Map(), { maxFileSize: 1024, directoryRead: true })
  t.same(completerOf(skill), { what: "skill 'skill://s/SKILL.md'", names: [], complete: undefined })
  t.same(completerOf({ kind: 'directory', uri: 'skill://s', children: [], skill: undefined, access: undefined, above: false }), { what: "directory 'skill://s'", names: [], complete: undefined })
  // a name inside a skill that is not there, named as what was asked for
  t.same(completerOf({ kind: 'in-skill', uri: 'skill://s/x', asked: 'resource', access: undefined }), { what: "resource 'skill://s/x'", names: [], complete: undefined })
  const found = completerOf({ kind: 'found', uri: 'users://a/b', resource: template, vars: { org: 'a', id: 'b' } })
  t.same([found.what, found.names, typeof found.complete], ["resource 'users://a/b'", ['org', 'id'], 'function'], 'the resource a read found: its template\'s')
  const fixed = completerOf({ kind: 'found', uri: 'config://x', resource: compileResource({ uri: 'config://x', name: 'x', read: () => 'x' }), vars: {} })
  t.same([fixed.names, fixed.complete], [[], undefined], 'a fixed resource completes nothing')
})

t.test('what a callback returns: checked and capped', async (t) => {
  t.same(completionOf(['a']), { values: ['a'] })
  t.same(completionOf({ values: ['a'], total: 3, hasMore: true }), { values: ['a'], total: 3, hasMore: true })
  const many = completionOf(Array.from({ length: 101 }, (_, i) => `v${i}`))
  t.same([many.values.length, many.total, many.hasMore], [100, 101, true])
  t.throws(() => completionOf('a'), /must return an array of strings or \{ values, total\?, hasMore\? \}/)
  t.throws(() => completionOf({ values: [], total: 1.5 }), /'total' must be a non-negative integer/)
  t.throws(() => completionOf({ values: [], hasMore: 1 }), /'hasMore' must be a boolean/)
})

t.test('the whole list: some values, no more, no larger total', async (t) => {
  t.same(wholeList({ values: ['a', 'b'] }), ['a', 'b'])
  t.same(wholeList({ values: ['a', 'b'], total: 2, hasMore: false }), ['a', 'b'])
  t.equal(wholeList({ values: [] }), undefined, 'nothing to choose from')
  t.equal(wholeList({ values: ['a'], hasMore: true }), undefined)
  t.equal(wholeList({ values: ['a'], total: 2 }), undefined)
})
