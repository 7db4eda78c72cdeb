// Wraps lines over LIMIT characters in .ts files the way the code is written by hand: a comment line
// at a space (same prefix), a code line after the rightmost comma or operator that fits (the rest
// indented one level; `eslint --fix` then settles indentation and operator placement), a long string
// split into a concatenation. Prints what it could not wrap.
//   node scripts/wrap-lines.mjs [--limit 120] [--dry] files...   (then: npx eslint --fix)
import ts from 'typescript'
import { readFileSync, writeFileSync } from 'node:fs'

const args = process.argv.slice(2)
let LIMIT = 120
let dry = false
const files = []
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--limit') LIMIT = Number(args[++i])
  else if (args[i] === '--dry') dry = true
  else files.push(args[i])
}

const left = []
let changedFiles = 0
let added = 0

for (const file of files) {
  let text = readFileSync(file, 'utf8')
  let changed = false
  // passes until nothing changes (a wrapped line's rest may be long again)
  for (let pass = 0; pass < 8; pass++) {
    const out = wrapFile(file, text)
    if (out === text) break
    text = out
    changed = true
  }
  if (changed) {
    changedFiles++
    if (!dry) writeFileSync(file, text)
  }
  text.split('\n').forEach((line, i) => { if (line.length > LIMIT) left.push(`${file}:${i + 1}: ${line.trim().slice(0, 90)}`) })
}
console.error(`wrap: ${changedFiles} files changed, ${added} lines added; ${left.length} lines still over ${LIMIT}`)
for (const l of left) console.log(l)

/** Ranges [start, end) of string, template and regex literals, and comments, in `text`. */
function protectedRanges (sf) {
  const literals = []
  const visit = (node) => {
    switch (node.kind) {
      case ts.SyntaxKind.StringLiteral:
      case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
      case ts.SyntaxKind.RegularExpressionLiteral:
      case ts.SyntaxKind.TemplateExpression:
        literals.push({ start: node.getStart(sf), end: node.end, node })
        return
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return literals
}

/** Ranges [start, end) of every comment in the file, from the trivia around each node. */
function commentRanges (sf) {
  const text = sf.text
  const seen = new Map()
  const add = (ranges) => { for (const r of ranges ?? []) seen.set(r.pos, { start: r.pos, end: r.end }) }
  const visit = (node) => {
    add(ts.getLeadingCommentRanges(text, node.pos))
    add(ts.getTrailingCommentRanges(text, node.end))
    for (const child of node.getChildren(sf)) visit(child)
  }
  visit(sf)
  add(ts.getLeadingCommentRanges(text, sf.endOfFileToken.pos))
  return [...seen.values()]
}

function wrapFile (file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const literals = protectedRanges(sf)
  const comments = commentRanges(sf)
  const lines = text.split('\n')
  const starts = []
  let pos = 0
  for (const line of lines) { starts.push(pos); pos += line.length + 1 }
  const result = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (line.length <= LIMIT) { result.push(line); continue }
    const lineStart = starts[i]
    const lineEnd = lineStart + line.length
    const inLiteral = (p) => literals.find((r) => r.start <= p && p < r.end)
    // a line that starts inside a multi-line literal (a template) is left as it is
    const startLit = inLiteral(lineStart + line.search(/\S/))
    if (startLit !== undefined && startLit.start < lineStart) { result.push(line); continue }
    const first = lineStart + line.search(/\S/)
    const inComment = comments.some((c) => c.start <= first && first < c.end)
    const wrapped = inComment ? wrapComment(line) : wrapCode(line, lineStart, lineEnd, inLiteral, comments, sf)
    if (wrapped === undefined) { result.push(line); continue }
    added += wrapped.length - 1
    result.push(...wrapped)
  }
  return result.join('\n')
}

/** A whole-line comment (`//`, or a JSDoc/block ` * ` line): split at the last space that fits. */
function wrapComment (line) {
  const m = /^(\s*)(\/\/ ?|\* ?|\/\*\* ?)(.*)$/.exec(line)
  if (m === null) return undefined
  const [, indent, mark] = m
  const prefix = indent + (mark.startsWith('/**') ? ' * ' : mark.startsWith('*') ? '* ' : '// ')
  const head = indent + mark
  let cut = line.lastIndexOf(' ', LIMIT)
  while (cut > head.length && line[cut - 1] === ' ') cut--
  if (cut <= head.length + 10) return undefined
  return [line.slice(0, cut).trimEnd(), prefix + line.slice(cut).trimStart()]
}

/** A code line: its trailing comment moved above it, else a break after a comma or operator, else a string split. */
function wrapCode (line, lineStart, lineEnd, inLiteral, comments, sf) {
  const indent = /^\s*/.exec(line)[0]
  // a trailing `// comment` goes on its own line above the code
  for (let j = line.indexOf('//'); j > 0; j = line.indexOf('//', j + 2)) {
    if (comments.some((c) => c.start === lineStart + j)) {
      const code = line.slice(0, j).trimEnd()
      const comment = indent + line.slice(j)
      return [comment, code]
    }
  }
  // candidates: after ', ' ; before ' && ', ' || ', ' ?? ', ' + ', after '=> ', ' = ', '('
  const cands = []
  let angle = 0
  const opens = []
  for (let j = indent.length; j < line.length; j++) {
    const p = lineStart + j
    const lit = inLiteral(p) ?? comments.find((r) => r.start <= p && p < r.end)
    if (lit !== undefined) { j = Math.max(j, lit.end - lineStart - 1); continue }
    const c = line[j]
    if (c === '<' && /[\w$]/.test(line[j - 1] ?? '')) { angle++; continue }
    if (c === '>' && angle > 0 && line[j - 1] !== '=') { angle--; continue }
    if (angle > 0) continue // inside a type's arguments
    if (c === '(' || c === '[' || c === '{') opens.push(c)
    if (c === ')' || c === ']' || c === '}') opens.pop()
    const depth = opens.length
    const inBrace = opens.includes('{')
    if (c === ',' && line[j + 1] === ' ') cands.push({ at: j + 1, rank: inBrace ? 1 : 3, depth })
    const two = line.slice(j, j + 4)
    if (two === ' && ' || two === ' || ' || two === ' ?? ') cands.push({ at: j + 3, rank: 2, depth })
    if (line.slice(j, j + 3) === ' + ') cands.push({ at: j + 2, rank: 2, depth })
    if (line.slice(j, j + 3) === '=> ' && line[j - 1] === ' ') cands.push({ at: j + 2, rank: 2, depth })
    if (line.slice(j, j + 3) === ' = ') cands.push({ at: j + 2, rank: 2, depth })
    if (c === '(' && line[j + 1] !== ')') cands.push({ at: j + 1, rank: 0, depth })
  }
  const fits = cands.filter((cand) => cand.at <= LIMIT && cand.at > indent.length + 20)
  if (fits.length > 0) {
    // the fewest lines the break costs once the linter has its way (an object literal then puts each
    // property on its own line, a ternary its two branches, an if without braces gets them), then one
    // break if one is enough, at the shallowest place, the best kind, the rightmost
    const restFits = (f) => indent.length + 2 + line.length - f.at <= LIMIT
    for (const f of fits) f.cost = costOf(sf, lineStart + f.at, lineStart, lineEnd) + (restFits(f) ? 0 : 1) + (f.rank === 0 ? 0.5 : 0)
    fits.sort((x, y) => x.cost - y.cost || x.depth - y.depth || y.rank - x.rank || y.at - x.at)
    const best = fits[0]
    const first = line.slice(0, best.at).trimEnd()
    const rest = line.slice(best.at).trimStart()
    if (rest.length > 0 && first.trim().length > 0) return [first, indent + '  ' + rest]
  }
  // a long plain string: split at a space into a concatenation
  for (let j = Math.min(LIMIT - 3, line.length - 1); j > indent.length + 20; j--) {
    const lit = inLiteral(lineStart + j)
    if (lit === undefined || lit.node.kind !== ts.SyntaxKind.StringLiteral) continue
    if (line[j] !== ' ' || lit.start < lineStart || lit.end > lineEnd) continue
    const parent = lit.node.parent
    // a string literal type, an import path or a property name cannot be a concatenation
    if (ts.isLiteralTypeNode(parent) || ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) ||
      (ts.isPropertyAssignment(parent) && parent.name === lit.node) || ts.isCaseClause(parent) ||
      ts.isEnumMember(parent)) return undefined
    const q = line[lit.start - lineStart]
    const first = line.slice(0, j + 1) + q + ' +'
    const rest = indent + '  ' + q + line.slice(j + 1)
    return [first, rest]
  }
  return undefined
}

/** Extra lines a break at `pos` costs after the linter: objects, ternaries and brace-less ifs around it. */
function costOf (sf, pos, lineStart, lineEnd) {
  let cost = 0
  let node = innermost(sf, pos)
  while (node !== undefined && node.kind !== ts.SyntaxKind.SourceFile) {
    const start = node.getStart(sf)
    // only constructs that sit on this line alone become multi-line by the break
    if (start >= lineStart && node.end <= lineEnd + 1) {
      if (ts.isObjectLiteralExpression(node) || ts.isObjectBindingPattern(node) || ts.isNamedImports(node) ||
        ts.isTypeLiteralNode(node)) {
        const n = ts.isObjectLiteralExpression(node) ? node.properties.length : ts.isTypeLiteralNode(node) ? node.members.length : node.elements.length
        cost += n + 1
      }
      if (ts.isConditionalExpression(node)) cost += 2
    }
    if ((ts.isIfStatement(node) || ts.isForOfStatement(node) || ts.isForStatement(node) || ts.isWhileStatement(node)) &&
      start >= lineStart && start < pos) {
      const body = ts.isIfStatement(node) ? node.thenStatement : node.statement
      if (!ts.isBlock(body)) cost += 2
    }
    node = node.parent
  }
  return cost
}

function innermost (sf, pos) {
  let found
  const visit = (node) => {
    if (node.getStart(sf) <= pos && pos < node.end) {
      found = node
      ts.forEachChild(node, visit)
    }
  }
  visit(sf)
  return found
}
