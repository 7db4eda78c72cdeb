// Skills in a folder on disk (lib/define/skill-folder.ts): each folder with a SKILL.md is a skill
// at its relative path (nested ones too), read once; hidden files and symbolic links are never
// read, whatever they point at (a secret next to the skills folder); mistakes name the folder or
// file on disk.
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { readSkillFolder } from '../../lib/define/skill-folder.js'
import { tree } from '../helpers/files.js'

const LIMITS = { maxFileSize: 1024, directoryRead: true }
const md = (name: string): string => `---\nname: ${name}\ndescription: Does ${name} things\n---\n# ${name}\n`

t.test('every folder with a SKILL.md is a skill at its relative path; a nested skill\'s files are its parent\'s too', async (t) => {
  const root = tree(t, {
    'skills/git-workflow/SKILL.md': md('git-workflow'),
    'skills/git-workflow/references/GUIDE.md': 'guide',
    'skills/acme/billing/refunds/SKILL.md': md('refunds'),
    'skills/acme/billing/refunds/examples/email.md': 'mail',
    'skills/acme/billing/refunds/partial/SKILL.md': md('partial'),
    'skills/acme/README.md': 'not in any skill'
  })
  const { skills, skipped } = readSkillFolder({ directory: join(root, 'skills') }, LIMITS)
  t.same(skipped, [])
  t.same(skills.map((s) => s.definition.path).sort(), ['acme/billing/refunds', 'acme/billing/refunds/partial', 'git-workflow'])
  const refunds = skills.find((s) => s.definition.path === 'acme/billing/refunds')!
  t.same(Object.keys(refunds.definition.files).sort(), ['SKILL.md', 'examples/email.md', 'partial/SKILL.md'], "the nested skill's files are supporting files of the one around it")
  t.equal(refunds.definition.files['examples/email.md']!.toString(), 'mail')
  t.equal(refunds.where('examples/email.md'), join(root, 'skills/acme/billing/refunds/examples/email.md'))
  const partial = skills.find((s) => s.definition.path === 'acme/billing/refunds/partial')!
  t.same(Object.keys(partial.definition.files), ['SKILL.md'])
})

t.test('a folder that is itself one skill; prefix and scope given to every skill; a file: URL', async (t) => {
  const root = tree(t, { 'pdf-processing/SKILL.md': md('pdf-processing'), 'pdf-processing/scripts/x.py': 'x' })
  const { skills } = readSkillFolder({ directory: pathToFileURL(join(root, 'pdf-processing')), prefix: 'acme/docs', scope: 'docs:read' }, LIMITS)
  t.same(skills.map((s) => s.definition), [{ path: 'acme/docs/pdf-processing', files: { 'SKILL.md': Buffer.from(md('pdf-processing')), 'scripts/x.py': Buffer.from('x') }, scope: 'docs:read' }])
})

t.test('hidden files and folders are skipped; symbolic links (to a secret next to the folder, to a folder) are not followed, and reported', async (t) => {
  const root = tree(t, {
    'secret.txt': 'TOP SECRET',
    'outside/SKILL.md': md('outside'),
    'skills/a/SKILL.md': md('a'),
    'skills/a/.env': 'KEY=1',
    'skills/a/.git/config': '[core]',
    'skills/a/ok.md': 'ok',
    'skills/.hidden-skill/SKILL.md': md('hidden-skill')
  })
  symlinkSync(join(root, 'secret.txt'), join(root, 'skills/a/leak.txt'))
  symlinkSync('../../secret.txt', join(root, 'skills/a/relative-leak.txt'))
  symlinkSync(join(root, 'outside'), join(root, 'skills/linked'))
  const { skills, skipped } = readSkillFolder({ directory: join(root, 'skills') }, LIMITS)
  t.same(skills.map((s) => s.definition.path), ['a'], 'no hidden skill, no skill behind a link')
  t.same(Object.keys(skills[0]!.definition.files).sort(), ['SKILL.md', 'ok.md'], 'no hidden file, no link')
  t.same(skipped.sort(), [join(root, 'skills/a/leak.txt'), join(root, 'skills/a/relative-leak.txt'), join(root, 'skills/linked')])
  for (const file of Object.values(skills[0]!.definition.files)) t.notMatch(file.toString(), /SECRET/)
})

t.test('mistakes name the folder or file on disk', async (t) => {
  const root = tree(t, { 'empty/README.md': 'x', 'big/SKILL.md': md('big'), 'big/data.bin': 'x'.repeat(1025), 'file.txt': 'x' })
  const fails = (def: unknown, message: RegExp, what: string): void => { t.throws(() => readSkillFolder(def as never, LIMITS), { code: 'SAKE_ERR_INVALID_SKILL', message }, what) }
  fails({ directory: join(root, 'empty') }, new RegExp(`skills folder ${join(root, 'empty')} holds no skill: each skill is a folder with a SKILL\\.md`), 'no skill')
  fails({ directory: join(root, 'big') }, new RegExp(`skill file ${join(root, 'big/data.bin')} is 1025 bytes, above skills\\.maxFileSize \\(1024\\)`), 'a file too large')
  fails({ directory: join(root, 'nowhere') }, /skills folder .*nowhere cannot be read: ENOENT/, 'no such folder')
  fails({ directory: join(root, 'file.txt') }, /file\.txt is not a folder$/, 'a file')
  fails({ directory: 3 }, /'directory' must be a path or a file: URL/, 'not a path')
  fails({ directory: root, prefix: '/x' }, /'prefix' must be path segments/, 'a bad prefix')
  fails({ directory: root, prefix: () => 'x' }, /'prefix' must be path segments such as 'acme' or 'acme\/billing', got function/, 'a prefix that is not a string')
  fails({ directory: root, path: 'x' }, /give 'prefix', not 'path', 'files' or 'resources'/, 'path on a folder')
  fails({ directory: root, prefx: 'x' }, /unknown option 'prefx'/, 'a typo')
  symlinkSync(join(root, 'big'), join(root, 'link'))
  fails({ directory: join(root, 'link') }, /link is not a folder \(a symbolic link, which is not followed: give the folder itself\)/, 'a linked folder')
})
