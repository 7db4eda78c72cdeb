// How big lib/ is at a git revision, in measures a consolidation can quote before and after (issue 42):
// `node bench/size.mjs [REV...]` (default HEAD), one line of JSON a revision.
//
// - `codeLines`: lines of lib/**/*.ts that hold code: not blank, not only a comment;
// - `tokens`: TypeScript tokens of those files, comments and white space not counted: unmoved by how
//   the code is wrapped, where `codeLines` grows with every line split to fit a width;
// - `files`, `importLines`, and `over120`: lines longer than 120 characters, comments included.
import { execFileSync } from 'node:child_process'
import ts from 'typescript'

const revs = process.argv.length > 2 ? process.argv.slice(2) : ['HEAD']

for (const rev of revs) {
  const names = execFileSync('git', ['ls-tree', '-r', '--name-only', rev, 'lib/']).toString().split('\n')
  const sizes = { rev, files: 0, codeLines: 0, tokens: 0, importLines: 0, over120: 0 }
  for (const name of names.filter((file) => file.endsWith('.ts'))) {
    const text = execFileSync('git', ['show', `${rev}:${name}`], { maxBuffer: 1 << 26 }).toString()
    sizes.files++
    const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
    const codeLines = new Set()
    // the parser's tokens (it knows where a template or a regular expression ends), JSDoc aside
    const visit = (node) => {
      if (ts.isJSDoc(node) || node.kind === ts.SyntaxKind.EndOfFileToken) return
      const children = node.getChildren(file)
      if (children.length > 0 && node.kind !== ts.SyntaxKind.NoSubstitutionTemplateLiteral) {
        for (const child of children) visit(child)
        return
      }
      sizes.tokens++
      // a token over several lines (a template) makes each of them a line of code
      const last = file.getLineAndCharacterOfPosition(node.end - 1).line
      for (let line = file.getLineAndCharacterOfPosition(node.getStart(file)).line; line <= last; line++) codeLines.add(line)
    }
    visit(file)
    sizes.codeLines += codeLines.size
    for (const line of text.split('\n')) {
      if (/^(import|export) .* from '/.test(line) || /^import '/.test(line)) sizes.importLines++
      if (line.length > 120) sizes.over120++
    }
  }
  console.log(JSON.stringify(sizes))
}
