// The embedded store's hand-off (Database.handoff): bytes left as a process closes the store reach the next process
// that opens it and no later one, so they can never describe a store that something else wrote to since.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { handoffFile, openDatabase } from '../../src/store/database.js'

describe('Database.handoff', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-'))
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

  it('gives what the last process left to the next opener only, once', { timeout: 60_000 }, async () => {
    const dir = path.join(root, 'pglite')
    const open = () => openDatabase({ kind: 'pglite', dir }, { migrate: false })
    const left = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) % 251)

    let db = await open()
    expect(db.handoff!.take()).toBeNull()
    await db.handoff!.leave(left)
    await db.close()
    expect(fs.existsSync(handoffFile(dir))).toBe(true)

    db = await open()
    // taken away as the store opened: nothing another opener could read while this one writes
    expect(fs.existsSync(handoffFile(dir))).toBe(false)
    expect(Buffer.from(db.handoff!.take()!).equals(Buffer.from(left))).toBe(true)
    expect(db.handoff!.take()).toBeNull()
    await db.close() // leaves nothing: a crash, or a command-line tool that wrote to the store

    db = await open()
    expect(db.handoff!.take()).toBeNull()
    await db.close()
  })

  it('travels with a copy of the stopped store: a restored backup gets the bytes left with it, not newer ones', { timeout: 60_000 }, async () => {
    const dir = path.join(root, 'restored')
    const backup = path.join(root, 'backup')
    const open = () => openDatabase({ kind: 'pglite', dir }, { migrate: false })
    let db = await open()
    await db.handoff!.leave(Buffer.from('as backed up'))
    await db.close()
    fs.cpSync(dir, backup, { recursive: true })
    db = await open()
    db.handoff!.take()
    await db.handoff!.leave(Buffer.from('newer'))
    await db.close()
    fs.rmSync(dir, { recursive: true })
    fs.cpSync(backup, dir, { recursive: true })
    db = await open()
    expect(Buffer.from(db.handoff!.take()!).toString()).toBe('as backed up')
    await db.close()
  })

  it('is absent on an in-memory store', async () => {
    const db = await openDatabase({ kind: 'pglite', dir: null }, { migrate: false })
    expect(db.handoff).toBeNull()
    await db.close()
  })
})
