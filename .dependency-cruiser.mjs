// Layering check for lib/ (npm run lint:deps, part of npm test); the layers are described in docs/architecture.md.
// Imports only point down, type-only imports included; no cycles anywhere in lib/.
//
//   top:      lib/index.ts, lib/plugin/** (what index.ts wires), lib/api.ts, lib/mcp-view.ts, lib/options/**
//   http:     lib/http/**
//   stdio:    lib/stdio/**     (beside http: a second transport on the protocol core; never imports
//                               'fastify', lib/http or lib/auth, and only the top layer imports it)
//   auth:     lib/auth/**
//   protocol: lib/protocol/**   (never imports 'fastify', not even types)
//   define:   lib/define/**     (only lib/define/handler-context.ts may import fastify, type-only)
//   state:    lib/state/**
//   bottom:   lib/spec/**, lib/errors.ts (and lib/errors/**, which it re-exports), lib/values.ts, lib/checks.ts
//
//   client:   lib/client/**      (fastify-sake/client: beside the server, not above or below it. It
//                                 imports the bottom layer and lib/define/header-params.ts only, and
//                                 'fastify' type-only; nothing of the server imports it, but for
//                                 lib/index.ts re-exporting lib/client/errors.ts)
//
// Every rule is an error: `depcruise` exits non-zero when any of them is broken.

const TOP = '^lib/((index|api|mcp-view)\\.ts$|options/|plugin/)'
const HTTP = '^lib/http/'
const STDIO = '^lib/stdio/'
const AUTH = '^lib/auth/'
const PROTOCOL = '^lib/protocol/'
const DEFINE = '^lib/define/'
const STATE = '^lib/state/'
const BOTTOM = '^lib/(spec/|errors/|(errors|values|checks|option-spec)\\.ts$)'
const CLIENT = '^lib/client/'
const INDEX = '^lib/index\\.ts$'
const LAYERS = [TOP, HTTP, STDIO, AUTH, PROTOCOL, DEFINE, STATE, BOTTOM, CLIENT]

// The npm package 'fastify' itself (not fastify-plugin, not @fastify/*), resolved or not.
const FASTIFY = ['(^|/)node_modules/fastify/', '^fastify(/|$)']

/** One rule per layer: a file in `from` must not import any of `above`. */
function layer (name, from, above, comment) {
  return { name: `layer-${name}`, severity: 'error', comment, from: { path: from }, to: { path: above } }
}

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'This import closes a cycle among lib/ files (type-only imports count too). Break it by ' +
        'moving the shared type or value down, into the lowest layer on the cycle (or into a new file of ' +
        'that layer that both sides import, e.g. lib/spec/types.ts), so that imports only point down.',
      from: { path: '^lib/' },
      to: { circular: true }
    },
    layer('stdio', STDIO, [TOP, HTTP, AUTH],
      'lib/stdio must not import lib/http, lib/auth or the top layer: it is a transport beside http/ on the ' +
      'protocol core (docs/architecture.md, "Transports"); move what both transports need down into lib/protocol, ' +
      'and take resolved options (the caller) as a parameter.'),
    layer('http', HTTP, [TOP, STDIO],
      'lib/http must not import the top layer (index.ts, api.ts, mcp-view.ts, options/, plugin/): take what it ' +
      'needs as a parameter (resolved options, the server context) from the caller in the top layer.'),
    layer('auth', AUTH, [TOP, HTTP, STDIO],
      'lib/auth must not import lib/http or the top layer: give http/ a verdict (a value or an error ' +
      'from errors.ts) and let http/ write the reply; take resolved options as a parameter.'),
    layer('protocol', PROTOCOL, [TOP, HTTP, STDIO, AUTH],
      'lib/protocol must not import lib/auth, lib/http or the top layer: return an outcome (a result or ' +
      'an error from errors.ts) and let http/ turn it into a reply or a 401/403 challenge; the ' +
      'per-request scope check lives in lib/protocol/access-check.ts, the requirement type in lib/define/requirement.ts.'),
    layer('define', DEFINE, [TOP, HTTP, STDIO, AUTH, PROTOCOL],
      'lib/define must not import lib/protocol, lib/auth, lib/http or the top layer: move the type it ' +
      'needs down (wire types to lib/spec/, AuthInfo and friends to lib/spec/types.ts, the requirement ' +
      'to lib/define/requirement.ts) or take it as a parameter.'),
    layer('state', STATE, [TOP, HTTP, STDIO, AUTH, PROTOCOL, DEFINE],
      'lib/state must not import lib/define or any layer above it: it stores plain data; move the type it ' +
      'needs to lib/spec/types.ts (or another bottom file) and import it from there.'),
    layer('bottom', BOTTOM, [TOP, HTTP, STDIO, AUTH, PROTOCOL, DEFINE, STATE],
      'The bottom layer (lib/spec/, errors.ts, values.ts, checks.ts) imports nothing above it: move the ' +
      'code it needs down here too, or move this code up to the layer that uses it.'),
    {
      name: 'client-alone',
      severity: 'error',
      comment: 'lib/client (fastify-sake/client) may import only the bottom layer (lib/spec/, errors.ts, values.ts, ' +
        'checks.ts) and lib/define/header-params.ts (the x-mcp-header rules): a `{ url }` client must not load the ' +
        'server. Move what it needs down to lib/spec/ (as spec/headers.ts holds the header encoding), or into lib/client/.',
      from: { path: CLIENT },
      to: { path: [TOP, HTTP, STDIO, AUTH, PROTOCOL, DEFINE, STATE], pathNot: '^lib/define/header-params\\.ts$' }
    },
    {
      name: 'nothing-imports-client',
      severity: 'error',
      comment: 'The server must not import lib/client: the client is a separate entry point (fastify-sake/client) ' +
        'that uses the server\'s bottom layer, never the other way round. (lib/index.ts has one exception: ' +
        'index-imports-client-errors-only.)',
      from: { path: '^lib/', pathNot: [CLIENT, INDEX] },
      to: { path: CLIENT }
    },
    {
      // The one exception to nothing-imports-client. The client's error classes (RpcError,
      // AuthChallengeError, HttpError, UnansweredInputError) live in lib/client/errors.ts, beside the
      // only code that raises them, and the package's main entry point exports them too, as it always
      // has: re-exporting the very same classes (one module, not copies) keeps `instanceof` working
      // whichever entry point an app imports them from. lib/client/errors.ts imports nothing, so this
      // loads none of the client.
      name: 'index-imports-client-errors-only',
      severity: 'error',
      comment: 'lib/index.ts may import lib/client/errors.ts (to export the client\'s error classes) and nothing ' +
        'else of lib/client: the server must not load the client.',
      from: { path: INDEX },
      to: { path: CLIENT, pathNot: '^lib/client/errors\\.ts$' }
    },
    {
      name: 'client-fastify-type-only',
      severity: 'error',
      comment: "lib/client may only `import type { FastifyInstance } from 'fastify'` (the `{ app }` option's type), " +
        'never a run-time import: a `{ url }` client runs without Fastify.',
      from: { path: CLIENT },
      to: { path: FASTIFY, preCompilationOnly: false }
    },
    {
      name: 'layer-unknown',
      severity: 'error',
      comment: 'This lib/ file is in none of the layers (docs/architecture.md): move it into one (top: index.ts, plugin/, ' +
        'api.ts, mcp-view.ts, options/; or http/, stdio/, auth/, protocol/, define/, state/, spec/, client/, errors.ts, ' +
        'values.ts, checks.ts), or add it to a layer in .dependency-cruiser.mjs and docs/architecture.md.',
      from: { path: '^lib/' },
      to: { path: '^lib/', pathNot: [...LAYERS, '\\.[cm]?jsx?$'] } // .js: not-to-js-in-lib says it
    },
    {
      name: 'protocol-no-fastify',
      severity: 'error',
      comment: "lib/protocol must not import 'fastify', not even types: use the plain types of " +
        'lib/spec/types.ts (Logger, AuthInfo, ...) or lib/protocol/call.ts, and let http/ pass in what ' +
        'it takes from the Fastify request and reply.',
      from: { path: PROTOCOL },
      to: { path: FASTIFY }
    },
    {
      name: 'stdio-no-fastify',
      severity: 'error',
      comment: "lib/stdio must not import 'fastify', not even types: it carries the protocol core's calls on " +
        'byte streams, with no HTTP request or reply; take the logger and the caller as plain values.',
      from: { path: STDIO },
      to: { path: FASTIFY }
    },
    {
      name: 'lower-layers-no-fastify',
      severity: 'error',
      comment: "Only the top layer, lib/http and lib/auth may import 'fastify'; lib/define/handler-context.ts may " +
        '`import type` from it. Use the plain types of lib/spec/types.ts, or the context types of ' +
        'lib/define/handler-context.ts.',
      from: { path: [DEFINE, STATE, BOTTOM], pathNot: '^lib/define/handler-context\\.ts$' },
      to: { path: FASTIFY }
    },
    {
      name: 'define-context-fastify-type-only',
      severity: 'error',
      comment: 'lib/define/handler-context.ts may only `import type { ... } from \'fastify\'` (the whole statement ' +
        'type-only: with verbatimModuleSyntax, `import { type X }` still loads the package), never a ' +
        'run-time import: the define layer must not load Fastify.',
      from: { path: '^lib/define/handler-context\\.ts$' },
      // Not `dependencyTypesNot: ['type-only']`: dependency-cruiser calls `import f, { type X } from`
      // and `import { type X } from` type-only, yet tsc (verbatimModuleSyntax) keeps both at run time.
      // preCompilationOnly comes from the emitted JavaScript; it needs tsPreCompilationDeps: 'specify'
      // (with `true` it is never set and this rule would never fire).
      to: { path: FASTIFY, preCompilationOnly: false }
    },
    {
      // Guard for the rules above: an import the cruiser cannot resolve is an edge it cannot check.
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'This import does not resolve to a file, so the layering cannot be checked for it: fix the ' +
        "path (lib/ imports end in '.js' and point at the '.ts' file) or install the package.",
      from: { path: '^lib/' },
      to: { couldNotResolve: true }
    },
    {
      // Guard too: './x.js' resolves to lib/x.ts only while there is no lib/x.js; a stray compiled file
      // would hide lib/x.ts (and its imports) from every rule above.
      name: 'not-to-js-in-lib',
      severity: 'error',
      comment: 'This import resolves to a JavaScript file inside lib/, not to the .ts source: delete the ' +
        'stray compiled file (tsc writes to dist/), so that the import is checked against lib/*.ts.',
      from: { path: '^lib/' },
      to: { path: '^lib/.+\\.[cm]?jsx?$' }
    }
  ],
  options: {
    // Cruise lib/ (the path given on the command line) and do not descend into packages. Every rule
    // above starts `from` lib/. No `includeOnly: '^lib/'` on purpose: it would also drop the imports
    // that do not resolve (their path is the bare specifier, e.g. './errors.js'), hiding them from
    // not-to-unresolvable and from the layer rules.
    doNotFollow: { path: 'node_modules' },
    // Keep type-only imports (`import type`, `import { type X }`, `import('x').T`) as edges, for the
    // cycle and layer rules alike. 'specify' keeps exactly the edges `true` keeps, and also marks
    // those that vanish from tsc's output (pre-compilation-only), which the context.ts rule needs.
    tsPreCompilationDeps: 'specify',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings']
    },
    // Only the rules above are reported, so nothing else needs to be computed.
    skipAnalysisNotInRules: true
  }
}
