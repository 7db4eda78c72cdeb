// Type tests of fastify-sake/client, against the built package: createClient's options, what the
// methods return, and what onInput accepts. Each `@ts-expect-error` must stay an error.
import Fastify from 'fastify'
import sake from 'fastify-sake'
import {
  createClient, Client, RpcError, AuthChallengeError, HttpError, UnansweredInputError, SakeClientOptionError, TOOL_COMPLETION_EXTENSION,
  SkillVerificationError, ServerCapabilityError, ServerProcessError, SKILLS_EXTENSION,
  type CallToolResult, type ClientOptions, type CommandOptions, type StderrMode, type ServerProcessReason, type OnInput, type InputRequest, type Tool, type ServerDescription,
  type Skill, type SkillFile, type SkillFrontmatter, type SkillResource, type SkillVerificationReason, type Resource
} from 'fastify-sake/client'
import { SkillVerificationError as MainSkillVerificationError, ServerProcessError as MainServerProcessError } from 'fastify-sake'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
function expectType<Expected> () {
  return <T>(value: T & (Equal<T, Expected> extends true ? unknown : never)): void => { void value }
}

const app = Fastify()
await app.register(sake, { name: 'types', version: '1.0.0' })

// ---- transports: a URL or an app, never both or neither
const overHttp = createClient({ url: 'http://127.0.0.1:3000/mcp', era: 'modern', token: async () => 'tok', timeout: 5000 })
const inProcess = createClient({ app, era: 'legacy', legacyVersion: '2025-06-18', path: '/mcp' })
expectType<Client>()(overHttp)
expectType<Client>()(inProcess)
createClient({ url: new URL('http://127.0.0.1/mcp'), fetch: globalThis.fetch })
// @ts-expect-error both transports
createClient({ url: 'http://x/mcp', app })
// @ts-expect-error neither transport
createClient({ era: 'modern' })
// @ts-expect-error an era that does not exist
createClient({ url: 'http://x/mcp', era: 'future' })
// @ts-expect-error path belongs to { app }
createClient({ url: 'http://x/mcp', path: '/mcp' })
// @ts-expect-error a legacy version that is not one
createClient({ app, legacyVersion: '2024-11-05' })
// @ts-expect-error token is a string or a function
createClient({ url: 'http://x/mcp', token: 42 })
const options: ClientOptions = { app, unanswered: 'cancel', maxRounds: 3, logLevel: 'info' }
void options

// ---- over stdio: a command instead of a URL
const overStdio = createClient({
  command: process.execPath,
  args: ['server.js', '--stdio'],
  env: { NOTES_DB: ':memory:', HOME: undefined },
  cwd: new URL('file:///srv/notes/'),
  stderr: 'inherit',
  closeTimeout: 2000,
  era: 'auto',
  onInput: { who: { action: 'accept', content: { name: 'Ada' } } }
})
expectType<Client>()(overStdio)
createClient({ command: 'node', cwd: '/srv/notes', stderr: 'ignore' })
const stdioOptions: CommandOptions = { command: 'npx', args: ['-y', 'some-mcp-server'] }
expectType<StderrMode | undefined>()(stdioOptions.stderr)
expectType<readonly string[] | undefined>()(stdioOptions.args)
// @ts-expect-error a command or a URL, not both
createClient({ command: 'node', url: 'http://x/mcp' })
// @ts-expect-error a command or an app, not both
createClient({ command: 'node', app })
// @ts-expect-error no headers over stdio: the server's environment carries what it needs
createClient({ command: 'node', headers: { 'x-api-key': 'k' } })
// @ts-expect-error no token over stdio
createClient({ command: 'node', token: 'tok' })
// @ts-expect-error stderr is pipe, inherit or ignore
createClient({ command: 'node', stderr: 'file' })
// @ts-expect-error args are strings
createClient({ command: 'node', args: [1] })
// @ts-expect-error env values are strings
createClient({ command: 'node', env: { PORT: 3000 } })
// @ts-expect-error args belong to a command
createClient({ url: 'http://x/mcp', args: ['--stdio'] })
// @ts-expect-error closeTimeout belongs to a command
createClient({ app, closeTimeout: 100 })

// ---- onInput: answers by key, or functions of the question
const answers: OnInput = {
  who: { action: 'accept', content: { name: 'Ada', age: 36, admin: false, tags: ['a'] } },
  no: { action: 'decline' },
  llm: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' },
  where: { roots: [{ uri: 'file:///x' }] },
  later: async (request: InputRequest, key: string) => request.method === 'elicitation/create' && key !== '' ? { action: 'cancel' } : undefined
}
createClient({ app, onInput: answers })
createClient({ app, onInput: (request) => request.method === 'roots/list' ? { roots: [] } : undefined })
// @ts-expect-error an action the spec does not have
createClient({ app, onInput: { who: { action: 'maybe' } } })
// @ts-expect-error content is a flat map of primitives
createClient({ app, onInput: { who: { action: 'accept', content: { nested: { x: 1 } } } } })
// @ts-expect-error unanswered is decline, cancel or error
createClient({ app, unanswered: 'ignore' })

// ---- results
const result = await inProcess.callTool('add', { a: 1, b: 2 })
expectType<CallToolResult<unknown>>()(result)
expectType<boolean | undefined>()(result.isError)
const typed = await inProcess.callTool<{ sum: number }>('add', { a: 1, b: 2 }, { onProgress: (p) => { expectType<number>()(p.progress) }, task: true })
expectType<{ sum: number } | undefined>()(typed.structuredContent)
// @ts-expect-error arguments are an object
await inProcess.callTool('add', 5)
// @ts-expect-error a call option that does not exist
await inProcess.callTool('add', {}, { onProgres: () => {} })
await inProcess.callTool('greet', {}, { onInput: { who: { action: 'decline' } }, signal: AbortSignal.timeout(100) })
expectType<Tool[]>()(await inProcess.listTools({ fresh: true }))
expectType<ServerDescription>()(await inProcess.discover())
expectType<string[]>()((await inProcess.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })).completion.values)
// a tool's argument (the fastify-sake extension a server advertises under TOOL_COMPLETION_EXTENSION)
expectType<'io.github.fastify-sake/tool-completion'>()(TOOL_COMPLETION_EXTENSION)
expectType<string[]>()((await inProcess.complete({ type: 'ref/tool', name: 'deploy' }, { name: 'service', value: 'a' }, { env: 'staging' })).completion.values)
// @ts-expect-error a tool is referred to by its name
await inProcess.complete({ type: 'ref/tool', uri: 'deploy' }, { name: 'service', value: '' })
expectType<'modern' | 'legacy' | undefined>()(inProcess.era)
// @ts-expect-error prompt arguments are strings
await inProcess.getPrompt('p', { n: 1 })

// ---- skills (SEP-2640)
expectType<'io.modelcontextprotocol/skills'>()(SKILLS_EXTENSION)
const skills = await inProcess.listSkills({ fresh: true })
expectType<Skill[]>()(skills)
const skill = await inProcess.getSkill('skill://git-workflow/SKILL.md', { signal: AbortSignal.timeout(100) })
expectType<SkillResource[] | 'dynamic'>()(skill.resources)
expectType<string>()(skill.frontmatter.description)
const file = await inProcess.readSkillFile(skill, 'references/GUIDE.md', { fresh: true })
expectType<SkillFile>()(file)
expectType<Uint8Array>()(file.bytes)
expectType<string | undefined>()(file.text)
expectType<boolean>()(file.verified)
expectType<SkillFrontmatter | undefined>()(file.frontmatter)
expectType<Resource[]>()(await inProcess.readSkillDirectory('skill://git-workflow/references'))
// @ts-expect-error a file is named by its path or a URI, a string
await inProcess.readSkillFile(skill, 1)
// @ts-expect-error the skill is its entry, not its URI
await inProcess.readSkillFile('skill://git-workflow/SKILL.md', 'SKILL.md')
// @ts-expect-error a folder read has no cache to skip
await inProcess.readSkillDirectory('skill://git-workflow', { fresh: true })

// ---- errors
const err: unknown = new Error('x')
if (err instanceof RpcError) expectType<number>()(err.code)
if (err instanceof AuthChallengeError) expectType<readonly string[]>()(err.scopes)
if (err instanceof HttpError) expectType<number>()(err.status)
if (err instanceof UnansweredInputError) expectType<string>()(err.key)
if (err instanceof SakeClientOptionError) expectType<string>()(err.code)
if (err instanceof SkillVerificationError) {
  expectType<'entry' | 'unlisted' | 'size' | 'digest' | 'frontmatter'>()(err.reason)
  expectType<SkillVerificationReason>()(err.reason)
  expectType<string>()(err.skill)
}
if (err instanceof MainSkillVerificationError) expectType<string>()(err.uri)
if (err instanceof ServerCapabilityError) expectType<string>()(err.capability)
if (err instanceof ServerProcessError) {
  expectType<'spawn' | 'exit' | 'output' | 'input'>()(err.reason)
  expectType<ServerProcessReason>()(err.reason)
  expectType<number | null>()(err.exitCode)
  expectType<string | null>()(err.signal)
  expectType<string | undefined>()(err.stderr)
  expectType<string>()(err.command)
}
if (err instanceof MainServerProcessError) expectType<string>()(err.command)
await overHttp.close()
await overStdio.close()
