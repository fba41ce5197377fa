// The dashboard at /dashboard: static HTML, one ES module per concern and a stylesheet, no build step.
// uPlot's JS and CSS are served from node_modules (no CDN). The page talks to the public API only.
import { createRequire } from 'node:module'
import path from 'node:path'
import express, { type Response } from 'express'
import { ROOT } from '../paths.js'

const PUBLIC_DIR = path.join(ROOT, 'src', 'dashboard', 'public')
const UPLOT_DIST = path.dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.esm.js'))

/** the vendored files the page may load, by the name it asks for */
const VENDOR: Record<string, string> = {
  'uPlot.esm.js': path.join(UPLOT_DIST, 'uPlot.esm.js'),
  'uPlot.min.css': path.join(UPLOT_DIST, 'uPlot.min.css'),
}

export function dashboardRouter(): express.Router {
  const router = express.Router({ caseSensitive: true, strict: false })

  const page = (_req: unknown, res: Response) => {
    // the page holds no data of its own (the key lives in the browser), but never cache it across deploys
    res.set('Cache-Control', 'no-cache').set('Referrer-Policy', 'no-referrer').sendFile(path.join(PUBLIC_DIR, 'index.html'))
  }
  router.get('/dashboard', page)

  // fixed paths (no route parameter to decode): anything else under /vendor is the app's 404
  for (const [name, file] of Object.entries(VENDOR))
    router.get(`/dashboard/vendor/${name}`, (_req, res) => res.set('Cache-Control', 'public, max-age=86400').sendFile(file))

  router.use(
    '/dashboard/assets',
    express.static(PUBLIC_DIR, {
      index: false,
      dotfiles: 'ignore',
      redirect: false,
      fallthrough: true,
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  )
  return router
}
