// Every analytics endpoint has its dashboard view: a module under src/dashboard/public/views/ naming the
// path, listed in views/registry.js, with its refresh period documented in docs/dashboard.md. A new endpoint
// that lands without its view fails here.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ENDPOINTS as ROUTES } from '../../src/endpoints/index.js'

const VIEWS_DIR = fileURLToPath(new URL('../../src/dashboard/public/views/', import.meta.url))
const DOC = fs.readFileSync(fileURLToPath(new URL('../../docs/dashboard.md', import.meta.url)), 'utf8')
const registry = fs.readFileSync(path.join(VIEWS_DIR, 'registry.js'), 'utf8')

/** view modules by the path they declare */
const modules = new Map(
  fs
    .readdirSync(VIEWS_DIR)
    .filter((f) => f.endsWith('.js'))
    .flatMap((f) => {
      const m = /^\s*path: '([^']+)',$/m.exec(fs.readFileSync(path.join(VIEWS_DIR, f), 'utf8'))
      return m ? [[m[1]!, f] as const] : []
    }),
)

describe('dashboard views', () => {
  it.each(ROUTES.map((r) => r.path))('%s has a view module, listed in the registry', (p) => {
    const file = modules.get(p)
    expect(file, `no module in src/dashboard/public/views/ declares path: '${p}'`).toBeDefined()
    const imported = new RegExp(`^import (\\w+) from '\\./${file!.replace('.', '\\.')}'$`, 'm').exec(registry)
    expect(imported, `views/registry.js does not import ${file}`).not.toBeNull()
    expect(/export const VIEWS = \[([^\]]*)\]/.exec(registry)![1]!.split(',').map((s) => s.trim())).toContain(imported![1])
  })

  it.each(ROUTES.map((r) => r.path))('%s has its refresh period in docs/dashboard.md', (p) => {
    expect(DOC).toMatch(new RegExp(`^\\| [^|]+ \\| ${p.replace(/\//g, '\\/')} \\| [^|]*\\d+ (s|min)[^|]* \\| [^|]+ \\|$`, 'm'))
  })

  it('every view module is a registered view, and ids are unique', () => {
    const ids = [...modules.values()].map((f) => /^\s*id: '([^']+)',$/m.exec(fs.readFileSync(path.join(VIEWS_DIR, f), 'utf8'))?.[1])
    expect(new Set(ids).size).toBe(ids.length)
    for (const f of modules.values()) expect(registry).toContain(`'./${f}'`)
  })
})
