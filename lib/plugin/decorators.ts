/**
 * What the plugin adds to the user's instance: the `register*` decorators (fed the plugin's own
 * `tools`, `resources` and `prompts` options first), `app.mcp`, and the request's `mcpAuth` and
 * `mcp` (a getter, computed when read on our routes only: the host's other routes pay nothing).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ResolvedOptions } from '../options/server.js'
import type { McpView, RegisterPrompt, RegisterResource, RegisterSkill, RegisterTool } from '../api.js'
import type { Registry } from '../define/registry.js'
import type { ToolDefinition } from '../define/tool-definition.js'
import type { ResourceDefinition } from '../define/resource.js'
import type { PromptDefinition } from '../define/prompt.js'
import type { SkillDefinition } from '../define/skill.js'
import { requestInfo } from '../http/request-info.js'
import { kMcpRoute } from '../http/routes.js'
import { routeToolInfo } from '../http/route-tools/run.js'

const SKIPPED_FILE = 'fastify-sake: a symbolic link, a hard link (a file with more than one name) or another special ' +
  'file in a skills folder is not read, and not served; copy the file into the skill instead (a copy, not a link)'

export function decorate (app: FastifyInstance, registry: Registry, options: ResolvedOptions, view: McpView): void {
  // an array registers all or none: a mistake in one definition leaves the server as it was
  const each = <T>(add: (definition: T) => unknown) => (definition: T | readonly T[]): void => {
    registry.all((Array.isArray(definition) ? definition : [definition]) as readonly T[], add)
  }
  const registerTool = each((one: ToolDefinition) => registry.addTool(one))
  const registerResource = each((one: ResourceDefinition) => registry.addResource(one))
  const registerPrompt = each((one: PromptDefinition) => registry.addPrompt(one))
  const registerSkill = (definition: SkillDefinition | readonly SkillDefinition[]): void => {
    const skipped: string[] = []
    each((one: SkillDefinition) => skipped.push(...registry.addSkill(one).skipped))(definition)
    for (const file of skipped) app.log.warn({ file }, SKIPPED_FILE)
  }
  registerTool(options.tools)
  registerResource(options.resources)
  registerPrompt(options.prompts)
  registerSkill(options.skills.definitions)

  app.decorate('registerTool', registerTool as RegisterTool)
  app.decorate('registerResource', registerResource as RegisterResource)
  app.decorate('registerPrompt', registerPrompt as RegisterPrompt)
  app.decorate('registerSkill', registerSkill as RegisterSkill)
  app.decorate('mcp', view)
  // null until the auth hook of our routes sets it (and always with auth off)
  app.decorateRequest('mcpAuth', null)
  requestMcp(app)
}

/**
 * `request.mcp`, once per app, on the root context's requests, so that it is null on every route
 * of the app (as its type says), also outside the context the plugin was registered in (a child
 * context's decorators never reach its parent): a getter, computed when read on our routes only,
 * for the registry the route carries, so one getter serves every server of the app. Fastify has
 * no public handle on the root context; a context is made from its parent with `Object.create`, so
 * the root is the last of the prototypes with `decorateRequest`. `test/index.test.ts` checks it,
 * so that a Fastify that made contexts otherwise fails there.
 */
function requestMcp (app: FastifyInstance): void {
  let root = app
  const up = Object.getPrototypeOf
  for (let parent = up(root); typeof parent?.decorateRequest === 'function'; parent = up(parent)) root = parent
  if (root.hasRequestDecorator('mcp')) return
  root.decorateRequest('mcp', {
    getter (this: FastifyRequest) {
      const config = this.routeOptions.config as unknown as Record<symbol, Registry | undefined> | undefined
      const served = config?.[kMcpRoute]
      // elsewhere: a host route exposed as a tool gets the tools/call that runs it, any other null
      return served === undefined ? routeToolInfo(this) : requestInfo(this, served)
    }
  })
}
