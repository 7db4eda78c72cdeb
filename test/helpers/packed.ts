// This package as a user installs it, for the suites that run the documentation's code in fresh
// projects (test/e2e/readme.test.ts, test/e2e/docs-typecheck.test.ts): `npm pack` once, the tarball
// extracted into `<base>/node_modules/fastify-sake`, and beside it, linked from the repository's own
// node_modules, what an install would put there (the package's dependencies, fastify, @types/node,
// and whatever else the documentation imports). Projects made below `base` resolve all of it.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
export const root = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

/** The compiler options `tsc --init` writes (TypeScript 5.9), the strictest a new project starts with, for a Node.js program. */
export const TSC_INIT_OPTIONS = {
  module: 'nodenext',
  target: 'esnext',
  types: [],
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  strict: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  noUncheckedSideEffectImports: true,
  moduleDetection: 'force',
  skipLibCheck: true
} as const

/**
 * Packs this package into `base` and installs it there as above, with `also` (package names the
 * repository has installed) linked too. Resolves once `<base>/node_modules` is ready.
 */
export async function installPacked (base: string, also: readonly string[] = []): Promise<void> {
  // --ignore-scripts: `prepare` would rebuild dist/ under the feet of the tests running beside this one
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', base], { cwd: root })
  const tarball = join(base, JSON.parse(stdout)[0].filename)
  await run('tar', ['-xzf', tarball, '-C', base])
  mkdirSync(join(base, 'node_modules'))
  renameSync(join(base, 'package'), join(base, 'node_modules', 'fastify-sake'))
  for (const name of new Set([...Object.keys(pkg.dependencies), 'fastify', '@types/node', ...also])) {
    const from = join(root, 'node_modules', name)
    if (!existsSync(from)) throw new Error(`${name} is not installed in the repository: add it to devDependencies`)
    mkdirSync(dirname(join(base, 'node_modules', name)), { recursive: true })
    symlinkSync(from, join(base, 'node_modules', name), 'dir')
  }
}

/** Compiles the project at `dir` with the repository's tsc; resolves with what it printed and whether it passed. */
export async function tsc (dir: string): Promise<{ ok: boolean, output: string }> {
  try {
    await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { cwd: dir, maxBuffer: 16 * 1024 * 1024 })
    return { ok: true, output: '' }
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string, stderr?: string }
    return { ok: false, output: stdout + stderr }
  }
}
