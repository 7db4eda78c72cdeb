// A skill file's mimeType (issue 41, item 7): mime-types (mime-db) by extension, ours where its
// answer is wrong for a skill's file, else text/plain for UTF-8 and application/octet-stream for
// bytes; mime-db loaded at the first file's type, not with the module.
import t from 'tap'
import { createRequire } from 'node:module'
import { mimeTypeOf } from '../../lib/define/mime-types.js'

const text = Buffer.from('some text\n')
const binary = Uint8Array.from([0xff, 0xfe, 0x00])
const mimeDbLoaded = (): boolean => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/mime-db/'))

t.test('mime-db is loaded at the first type asked for', async (t) => {
  t.equal(mimeDbLoaded(), false, 'not by importing the module')
  t.equal(mimeTypeOf('notes', text), 'text/plain', 'nor for a file without an extension')
  t.equal(mimeDbLoaded(), false)
  t.equal(mimeTypeOf('a.md', text), 'text/markdown')
  t.equal(mimeDbLoaded(), true, 'then')
})

t.test('by extension, from mime-db', async (t) => {
  const cases: Array<[string, string]> = [
    ['SKILL.md', 'text/markdown'], ['a.markdown', 'text/markdown'], ['a.txt', 'text/plain'], ['a.html', 'text/html'],
    ['a.css', 'text/css'], ['a.csv', 'text/csv'], ['a.xml', 'application/xml'], ['a.json', 'application/json'],
    ['a.toml', 'application/toml'], ['a.js', 'text/javascript'], ['a.mjs', 'text/javascript'], ['a.sql', 'application/sql'],
    ['a.png', 'image/png'], ['a.jpg', 'image/jpeg'], ['a.jpeg', 'image/jpeg'], ['a.gif', 'image/gif'], ['a.webp', 'image/webp'],
    ['a.svg', 'image/svg+xml'], ['a.pdf', 'application/pdf'], ['a.zip', 'application/zip'],
    // beyond the table it replaced
    ['a.wasm', 'application/wasm'], ['a.ipynb', 'application/x-ipynb+json'], ['a.c', 'text/x-c'], ['a.tsv', 'text/tab-separated-values'], ['a.woff2', 'font/woff2']
  ]
  for (const [file, type] of cases) t.equal(mimeTypeOf(`scripts/${file}`, text), type, file)
  t.equal(mimeTypeOf('a.JSON', text), 'application/json', 'case-insensitive')
  t.equal(mimeTypeOf('logo.png', binary), 'image/png', 'a known extension whatever the bytes')
})

t.test('ours, where mime-db is wrong for a skill\'s file or has nothing', async (t) => {
  const cases: Array<[string, string]> = [
    ['a.yaml', 'application/yaml'], ['a.yml', 'application/yaml'], ['a.ts', 'text/x-typescript'], ['a.mts', 'text/x-typescript'],
    ['a.cts', 'text/x-typescript'], ['a.rs', 'text/x-rust'], ['a.cjs', 'text/javascript'], ['run.py', 'text/x-python'],
    ['a.rb', 'text/x-ruby'], ['run.sh', 'text/x-shellscript'], ['A.YML', 'application/yaml']
  ]
  for (const [file, type] of cases) t.equal(mimeTypeOf(file, text), type, file)
})

t.test('no known extension: text/plain for UTF-8, application/octet-stream otherwise', async (t) => {
  for (const file of ['notes', 'a.unknownext', '.json', 'file.', 'dir.v2/README', 'a.constructor', 'a.__proto__', 'a.toString']) {
    t.equal(mimeTypeOf(file, text), 'text/plain', `${file}: text`)
    t.equal(mimeTypeOf(file, binary), 'application/octet-stream', `${file}: bytes`)
  }
  t.equal(mimeTypeOf('empty', new Uint8Array()), 'text/plain', 'no bytes are UTF-8')
})
