// Skills in a folder on disk (lib/define/skill-folder.ts): each folder with a SKILL.md is a skill
// at its relative path (nested ones too), read once; hidden files, symbolic links and hard links
// are never read, whatever they point at (a secret next to the skills folder), not even a file that
// becomes a hard link while the folder is read; mistakes name the folder or file on disk.
import * as fs from 'node:fs'
import { linkSync, symlinkSync } from 'node:fs'
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

t.test('a hard link (a file with a second name, which may be a secret outside the folder) is not read, and reported as a symbolic link is', async (t) => {
  const root = tree(t, {
    'secret.txt': 'TOP SECRET',
    'skills/a/SKILL.md': md('a'),
    'skills/a/ok.md': 'ok',
    'skills/b/SKILL.md': md('b'),
    'kept.md': 'kept'
  })
  linkSync(join(root, 'secret.txt'), join(root, 'skills/a/leak.txt')) // outside the folder, linked in
  linkSync(join(root, 'skills/a/ok.md'), join(root, 'skills/a/copy.md')) // both names inside: which is the original, nobody can tell
  linkSync(join(root, 'skills/b/SKILL.md'), join(root, 'b-manifest.md')) // a skill's SKILL.md with a second name: no skill
  const { skills, skipped } = readSkillFolder({ directory: join(root, 'skills') }, LIMITS)
  t.same(skills.map((s) => s.definition.path), ['a'], 'b, whose SKILL.md has two names, is no skill')
  t.same(Object.keys(skills[0]!.definition.files), ['SKILL.md'], 'neither name of a hard-linked file is read')
  t.same(skipped.sort(), ['skills/a/copy.md', 'skills/a/leak.txt', 'skills/a/ok.md', 'skills/b/SKILL.md'].map((file) => join(root, file)))
  for (const file of Object.values(skills[0]!.definition.files)) t.notMatch(file.toString(), /SECRET/)
})

t.test('a file that becomes a hard link between the walk and the read is not read: the opened file is checked', async (t) => {
  const root = tree(t, { 'secret.txt': 'TOP SECRET', 'skills/a/SKILL.md': md('a'), 'skills/a/x.md': 'x', 'skills/a/nested/SKILL.md': md('nested'), 'skills/a/nested/y.md': 'y' })
  const swapped = [join(root, 'skills/a/x.md'), join(root, 'skills/a/nested/y.md')]
  // as an attacker racing the registration would: once the walk has looked at a file, its name is made a hard link to the secret
  const { readSkillFolder: racing } = await t.mockImport<typeof import('../../lib/define/skill-folder.js')>('../../lib/define/skill-folder.js', {
    'node:fs': {
      ...fs,
      lstatSync: (path: string, ...rest: unknown[]) => {
        const stat = (fs.lstatSync as (...args: unknown[]) => fs.Stats)(path, ...rest)
        if (swapped.includes(path)) {
          fs.rmSync(path)
          fs.linkSync(join(root, 'secret.txt'), path)
        }
        return stat
      }
    }
  })
  const { skills, skipped } = racing({ directory: join(root, 'skills') }, LIMITS)
  t.same(skills.map((s) => [s.definition.path, Object.keys(s.definition.files).sort()]), [['a', ['SKILL.md', 'nested/SKILL.md']], ['a/nested', ['SKILL.md']]])
  t.same(skipped.sort(), swapped.sort(), 'reported once each (the nested skill\'s file is read for both skills)')
  for (const skill of skills) for (const file of Object.values(skill.definition.files)) t.notMatch(file.toString(), /SECRET/)
})
