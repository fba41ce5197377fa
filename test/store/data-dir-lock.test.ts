import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { lockDataDir, StoreLockedError } from '../../src/store/data-dir-lock.js'

// The embedded store's directory belongs to one process: a second taker gets an error naming the holder; a lock
// left by a process that no longer exists is taken over at once.
describe('embedded store lock', () => {
  const dirs: string[] = []
  const fresh = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-lock-'))
    dirs.push(d)
    const dir = path.join(d, 'pglite')
    fs.mkdirSync(dir)
    return dir
  }
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
  })

  it('a second taker is refused with the holder named; after release it can take it', async () => {
    const dir = fresh()
    const release = await lockDataDir(dir)
    const err = await lockDataDir(dir).then(() => null, (e: unknown) => e)
    expect(err).toBeInstanceOf(StoreLockedError)
    expect((err as Error).message).toContain(`process ${process.pid} on ${os.hostname()}`)
    expect((err as Error).message).toContain(dir)
    await release()
    const again = await lockDataDir(dir)
    await again()
  })

  it('a lock whose holder process is gone is taken over at once', async () => {
    const dir = fresh()
    fs.mkdirSync(`${dir}.lock`)
    // a pid far above any live one (pid_max is at most 4194304)
    fs.writeFileSync(`${dir}.lock-holder.json`, JSON.stringify({ pid: 4_194_999, host: os.hostname(), command: 'node old', since: new Date().toISOString() }))
    const release = await lockDataDir(dir)
    expect(JSON.parse(fs.readFileSync(`${dir}.lock-holder.json`, 'utf8')).pid).toBe(process.pid)
    await release()
    expect(fs.existsSync(`${dir}.lock`)).toBe(false)
  })
})
