// Every analytics endpoint is on the dashboard: either a module of its own under src/dashboard/public/views/ naming
// the path, listed in views/registry.js, with its refresh period documented in docs/dashboard.md, or the generic
// view (generic-view.js: the answer as a JSON tree, refreshed once a minute, documented once in docs/dashboard.md)
// that views-page.js builds for every paid path of /openapi.json without a module. A new endpoint needs no dashboard
// change to be on the page; a dedicated view is added when a table or chart reads better.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ENDPOINTS as ROUTES } from '../../src/endpoints/index.js'

const PUBLIC_DIR = fileURLToPath(new URL('../../src/dashboard/public/', import.meta.url))
const VIEWS_DIR = path.join(PUBLIC_DIR, 'views')
const DOC = fs.readFileSync(fileURLToPath(new URL('../../docs/dashboard.md', import.meta.url)), 'utf8')
const registry = fs.readFileSync(path.join(VIEWS_DIR, 'registry.js'), 'utf8')
const page = fs.readFileSync(path.join(PUBLIC_DIR, 'views-page.js'), 'utf8')
const generic = fs.readFileSync(path.join(PUBLIC_DIR, 'generic-view.js'), 'utf8')

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
const dedicated = ROUTES.map((r) => r.path).filter((p) => modules.has(p))
const withoutModule = ROUTES.map((r) => r.path).filter((p) => !modules.has(p))

describe('dashboard views', () => {
  it.each(dedicated)('%s has a view module, listed in the registry', (p) => {
    const file = modules.get(p)
    const imported = new RegExp(`^import (\\w+) from '\\./${file!.replace('.', '\\.')}'$`, 'm').exec(registry)
    expect(imported, `views/registry.js does not import ${file}`).not.toBeNull()
    expect(/export const VIEWS = \[([^\]]*)\]/.exec(registry)![1]!.split(',').map((s) => s.trim())).toContain(imported![1])
  })

  it.each(dedicated)('%s has its refresh period in docs/dashboard.md', (p) => {
    expect(DOC).toMatch(new RegExp(`^\\| [^|]+ \\| ${p.replace(/\//g, '\\/')} \\| [^|]*\\d+ (s|min)[^|]* \\| [^|]+ \\|$`, 'm'))
  })

  it('every view module is a registered view, and ids are unique', () => {
    const ids = [...modules.values()].map((f) => /^\s*id: '([^']+)',$/m.exec(fs.readFileSync(path.join(VIEWS_DIR, f), 'utf8'))?.[1])
    expect(new Set(ids).size).toBe(ids.length)
    for (const f of modules.values()) expect(registry).toContain(`'./${f}'`)
  })

  it('an endpoint without a module gets the generic view, whose period is documented once', () => {
    // views-page.js builds a generic panel for every paid /v1/ path of /openapi.json that no module covers
    expect(page).toMatch(/import \{ genericView \} from '\.\/generic-view\.js'/)
    expect(page).toMatch(/!covered\.has\(p\)\)\.map\(\(\[p, item\]\) => genericView\(p, item\.get\)\)/)
    expect(generic).toMatch(/^const GENERIC_PERIOD = MINUTE$/m)
    expect(DOC).toMatch(/^\| any other endpoint \(generic view\) \| any path without a view module \| 1 min \| [^|]+ \|$/m)
    expect(dedicated.length + withoutModule.length).toBe(ROUTES.length)
  })
})
