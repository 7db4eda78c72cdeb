// The documentation as a reader follows it (issue 31): every relative link of README.md,
// CHANGELOG.md and docs/*.md leads to a file of the repository, and its #anchor to a heading of that
// file; a link to this repository on GitHub (where what the package does not ship is linked) names a
// file or folder that exists, and its anchor a heading; every page of docs/ is linked from the
// README. The contributors' pages (architecture, development, conformance) stay out of the package
// (`!docs/...` in package.json's `files`): a document the package ships links them on GitHub only,
// never relatively, which would be a dead link in node_modules. That npm ships what these documents
// link is test/e2e/packaging.test.ts's concern.
import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { headingAnchors, markdownLinks } from '../helpers/markdown.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
/** Where the repository lives: package.json's `repository`, as links to it are written. */
const REPOSITORY = 'https://github.com/fastify-sake/fastify-sake'
const pages = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`).sort()
const documents = ['README.md', 'CHANGELOG.md', ...pages]
/** The pages package.json's `files` leaves out of the package (its `!docs/<page>.md` entries). */
const unpacked = (pkg.files as string[]).filter((entry) => entry.startsWith('!')).map((entry) => entry.slice(1)).sort()
const packed = documents.filter((path) => !unpacked.includes(path))

/** The anchors of a markdown file of the repository (by path from the root), read once. */
const anchors = new Map<string, Set<string>>()
function anchorsOf (path: string, text?: string): Set<string> {
  if (!anchors.has(path)) anchors.set(path, headingAnchors(text ?? readFileSync(join(root, path), 'utf8')))
  return anchors.get(path)!
}

/** What is wrong with a link to `path` (from the root; '' for the document itself) and `anchor`, or undefined. */
function target (path: string, anchor: string | undefined, kind: 'file' | 'folder' | 'either', from: string, text: string): string | undefined {
  const full = join(root, path)
  if (path === from) return anchor === undefined || anchorsOf(path, text).has(anchor) ? undefined : `no heading of ${path} has the anchor #${anchor}`
  if (path.startsWith('..') || !existsSync(full)) return `no ${path} in the repository`
  const folder = statSync(full).isDirectory()
  if (kind === 'file' && folder) return `${path} is a folder (GitHub links a folder with tree/)`
  if (kind === 'folder' && !folder) return `${path} is a file (GitHub links a file with blob/)`
  if (anchor === undefined) return undefined
  if (!path.endsWith('.md')) return `#${anchor} on ${path}, which is no markdown file`
  if (!anchorsOf(path).has(anchor)) return `no heading of ${path} has the anchor #${anchor}`
  return undefined
}

/** Every broken link of `text`, the document at `path` (from the root), as `path:line: target: why`. */
function brokenLinks (path: string, text: string): string[] {
  const broken: string[] = []
  for (const { target: link, line } of markdownLinks(text)) {
    let problem: string | undefined
    const [location, anchor] = link.split('#', 2) as [string, string | undefined]
    if (link.startsWith(`${REPOSITORY}/`)) {
      const parsed = /^\/(blob|tree)\/main\/([^#]+)$/.exec(location.slice(REPOSITORY.length))
      problem = parsed === null
        ? 'a link into the repository is .../blob/main/<file> or .../tree/main/<folder>'
        : target(normalize(parsed[2]!), anchor, parsed[1] === 'blob' ? 'file' : 'folder', path, text)
    } else if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
      continue // another site: not checked here
    } else {
      const resolved = location === '' ? path : relative(root, join(root, dirname(path), location))
      problem = target(resolved, anchor === '' ? undefined : anchor, 'either', path, text)
    }
    if (problem !== undefined) broken.push(`${path}:${line}: ${link}: ${problem}`)
  }
  return broken
}

t.test('every relative link of the README, the changelog and docs/ leads to a file, and its anchor to a heading', async (t) => {
  let links = 0
  for (const path of documents) {
    const text = readFileSync(join(root, path), 'utf8')
    links += markdownLinks(text).length
    t.same(brokenLinks(path, text), [], path)
  }
  t.ok(links > 100, `the documents link each other (${links} links read)`)
})

t.test('the check finds what is broken', async (t) => {
  const text = [
    '# Page',
    '## A `code` heading: (with) punctuation',
    '## Page',
    '[ok](#a-code-heading-with-punctuation) [ok](#page-1) [ok](fastify.md#register-options-prefix-loglevel) [ok](../README.md)',
    `[ok](${REPOSITORY}/tree/main/gateway) [ok](${REPOSITORY}/blob/main/gateway/README.md) [ok](https://example.com/x.md#nothing)`,
    '[bad](#nowhere) [bad](missing.md) [bad](options.md#nowhere) [bad](../LICENSE#x)',
    `[bad](${REPOSITORY}/blob/main/gateway) [bad](${REPOSITORY}/blob/main/nothing.md) [bad](${REPOSITORY}/issues)`,
    '`[not a link](nowhere.md)`',
    '```md',
    '[not a link](nowhere.md)',
    '```',
    'A code span that `wraps',
    '[not a link](nowhere.md)` ends here; [bad](#after-the-span)'
  ].join('\n')
  t.same(brokenLinks('docs/page.md', text), [
    'docs/page.md:6: #nowhere: no heading of docs/page.md has the anchor #nowhere',
    'docs/page.md:6: missing.md: no docs/missing.md in the repository',
    'docs/page.md:6: options.md#nowhere: no heading of docs/options.md has the anchor #nowhere',
    'docs/page.md:6: ../LICENSE#x: #x on LICENSE, which is no markdown file',
    `docs/page.md:7: ${REPOSITORY}/blob/main/gateway: gateway is a folder (GitHub links a folder with tree/)`,
    `docs/page.md:7: ${REPOSITORY}/blob/main/nothing.md: no nothing.md in the repository`,
    `docs/page.md:7: ${REPOSITORY}/issues: a link into the repository is .../blob/main/<file> or .../tree/main/<folder>`,
    'docs/page.md:13: #after-the-span: no heading of docs/page.md has the anchor #after-the-span'
  ])
})

/** Every relative link of `text` (the document at `path`) that leads to one of `pages`, as `path:line: target`. */
function linksTo (pages: readonly string[], path: string, text: string): string[] {
  return markdownLinks(text)
    .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && target.split('#')[0] !== '')
    .filter(({ target }) => pages.includes(relative(root, join(root, dirname(path), target.split('#')[0]!))))
    .map(({ target, line }) => `${path}:${line}: ${target}`)
}

t.test('the contributors\' pages are left out of the package, and what it ships links them on GitHub only', async (t) => {
  t.same(unpacked, ['docs/architecture.md', 'docs/conformance.md', 'docs/development.md'])
  for (const path of packed) t.same(linksTo(unpacked, path, readFileSync(join(root, path), 'utf8')), [], `${path} links no unpacked page relatively`)
  // the check finds one
  t.same(linksTo(unpacked, 'docs/page.md', 'See [how](development.md#design) and [the code](../lib/index.ts).\n[Here](architecture.md) `[no](development.md)`'), [
    'docs/page.md:1: development.md#design',
    'docs/page.md:2: architecture.md'
  ])
})

t.test('every page of docs/ is linked from the README (one left out of the package, on GitHub), and package.json names the repository the links point into', async (t) => {
  const linked = new Set(markdownLinks(readFileSync(join(root, 'README.md'), 'utf8')).map(({ target }) => target.split('#')[0]))
  for (const page of pages) {
    const link = unpacked.includes(page) ? `${REPOSITORY}/blob/main/${page}` : page
    t.ok(linked.has(link), `README.md links ${link}`)
  }
  t.same(pkg.repository, { type: 'git', url: `git+${REPOSITORY}.git` })
  t.equal(pkg.homepage, `${REPOSITORY}#readme`)
  t.same(pkg.bugs, { url: `${REPOSITORY}/issues` })
})
