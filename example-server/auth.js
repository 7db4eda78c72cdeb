// AUTH=1: the example as an OAuth 2.1 resource server. It signs its own tokens with a key pair
// made at start and serves the public key as a JWKS, so it runs with no authorization server;
// a real deployment points `jwks` at its authorization server's keys instead. It is not an
// authorization server itself: clients cannot run an OAuth flow against it, only use the token
// it prints.
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { Type, InsufficientScopeError, defineTool } from 'fastify-sake'

const issues = new Map([[1, { id: 1, title: 'Example issue', owner: 'example-user', open: true }]])

const listIssues = defineTool({
  name: 'list_issues',
  description: 'Lists the issues (needs issues:read)',
  annotations: { readOnly: true },
  scope: 'issues:read',
  execute: () => [...issues.values()]
})

const createIssue = defineTool({
  name: 'create_issue',
  description: 'Opens an issue owned by the caller (needs issues:write)',
  scope: 'issues:write',
  args: { title: Type.String({ minLength: 1 }) },
  execute ({ title }, ctx) {
    const issue = { id: issues.size + 1, title, owner: ctx.auth.subject, open: true }
    issues.set(issue.id, issue)
    return issue
  }
})

const closeIssue = defineTool({
  name: 'close_issue',
  description: "Closes an issue; another person's issue also needs issues:admin",
  scope: 'issues:write',
  args: { id: Type.Integer() },
  execute ({ id }, ctx) {
    const issue = issues.get(id)
    if (issue === undefined) return `No issue ${id}`
    if (issue.owner !== ctx.auth.subject && !ctx.auth.scopes.includes('issues:admin')) throw new InsufficientScopeError('issues:admin')
    issue.open = false
    return issue
  }
})

// stream: true, with progress per issue. Exporting everyone's issues needs issues:admin, decided in
// execute before anything is sent: the client gets the plain 403 and its challenge, not a stream
const exportIssues = defineTool({
  name: 'export_issues',
  description: "Exports your issues with progress; everyone's issues also needs issues:admin",
  annotations: { readOnly: true },
  scope: 'issues:read',
  stream: true,
  args: { everyone: Type.Boolean({ default: false }) },
  execute ({ everyone }, ctx) {
    if (everyone && !ctx.auth.scopes.includes('issues:admin')) throw new InsufficientScopeError('issues:admin')
    const exported = [...issues.values()].filter((issue) => everyone || issue.owner === ctx.auth.subject)
    exported.forEach((issue, i) => ctx.progress(i + 1, exported.length, `Exported issue ${issue.id}`))
    return exported
  }
})

// step-up: only a recent multi-factor sign-in may delete
const deleteIssue = defineTool({
  name: 'delete_issue',
  description: 'Deletes an issue (needs issues:write and a multi-factor sign-in in the last 5 minutes)',
  annotations: { destructive: true },
  scope: 'issues:write',
  authentication: { acr: ['mfa'], maxAge: 300 },
  args: { id: Type.Integer() },
  execute: ({ id }) => issues.delete(id) ? `Deleted issue ${id}` : `No issue ${id}`
})

/**
 * The plugin options and setup of AUTH=1 for a server reachable at `baseUrl`: the resource is
 * `${baseUrl}/mcp`, and tokens are issued (by this process) for it.
 */
export async function exampleAuth (baseUrl) {
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  const jwk = { ...await exportJWK(publicKey), kid: 'example-key', alg: 'ES256', use: 'sig' }
  const resource = `${baseUrl}/mcp`
  const sign = (claims = {}) => new SignJWT({ scope: 'issues:read issues:write notes:write', acr: 'mfa', auth_time: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
    .setIssuer(baseUrl)
    .setAudience(resource)
    .setSubject(claims.sub ?? 'example-user')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey)
  return {
    options: {
      scopes: { 'issues:read': 'Read issues', 'issues:write': 'Open, close and delete your issues', 'issues:admin': "Close other people's issues", 'notes:write': 'Add notes (the create_note route tool)' },
      auth: {
        resource,
        authorizationServers: [baseUrl],
        jwks: `${baseUrl}/.well-known/jwks.json`,
        metadata: { resource_name: 'fastify-sake example issues' }
      }
    },
    tools: [listIssues, createIssue, closeIssue, exportIssues, deleteIssue],
    /** Serves the JWKS and prints a sample token with both scopes. */
    async install (app) {
      app.get('/.well-known/jwks.json', async () => ({ keys: [jwk] }))
      app.log.info(`Sample token (issues:read issues:write notes:write, acr mfa, valid 1 hour): ${await sign()}`)
    },
    sign
  }
}
