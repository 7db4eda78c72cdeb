// Reading the documentation as a test does: its links (outside code), its headings as GitHub
// anchors them, and its fenced code blocks with the HTML comment that marks one runnable.

/** A fenced code block: its info string (`js`, `ts`), its text, and the marker comment just before it, if any. */
export interface CodeBlock { info: string, code: string, marker: string | undefined, line: number }

/** Every fenced code block (``` at any indentation), in order. */
export function codeBlocks (markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!)
    if (open === null) continue
    const indent = open[1]!.length
    const start = i
    const body: string[] = []
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(indent))
    // the marker: an HTML comment on the last non-blank line before the fence
    let before = start - 1
    while (before >= 0 && lines[before]!.trim() === '') before--
    const marker = before >= 0 ? /^<!--\s*(.*?)\s*-->$/.exec(lines[before]!.trim())?.[1] : undefined
    blocks.push({ info: open[2]!, code: body.join('\n') + '\n', marker, line: start + 1 })
  }
  return blocks
}

/**
 * The text's lines without its fenced code blocks and inline code spans: where links are read.
 * A span may wrap onto the next line (not across a blank one); its newlines stay, so every line
 * keeps its number.
 */
function prose (markdown: string): string[] {
  let fenced = false
  const unfenced = markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced
      return ''
    }
    return fenced ? '' : line
  }).join('\n')
  return unfenced.replace(/`(?:[^`\n]|\n(?!\n))*`/g, (span) => span.replace(/[^\n]/g, '')).split('\n')
}

/** Every inline link's target outside code, with its line: `[text](target)`. */
export function markdownLinks (markdown: string): Array<{ target: string, line: number }> {
  const links: Array<{ target: string, line: number }> = []
  for (const [i, line] of prose(markdown).entries()) {
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ target: match[1]!, line: i + 1 })
  }
  return links
}

/** GitHub's anchor of a heading: lowercased, punctuation (backticks, dots, colons, parentheses, @) dropped, spaces as '-'. */
export function slug (heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '').replace(/ /g, '-')
}

/** The anchors of every heading (outside code), a repeated one numbered as GitHub does (`x`, `x-1`). */
export function headingAnchors (markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading === null) continue
    const base = slug(heading[1]!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}
