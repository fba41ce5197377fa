// A minimal SSE reader for the tests: frames from a fetch body, with their arrival time.
export interface SseFrame {
  id: string | null
  event: string
  data: string
  at: number
}

export function sseReader(res: Response) {
  const frames: SseFrame[] = []
  const reader = res.body!.getReader()
  const dec = new TextDecoder()
  let buf = ''
  let ended = false
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) break
      buf += dec.decode(value, { stream: true })
      let i
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i)
        buf = buf.slice(i + 2)
        let id: string | null = null
        let event = 'message'
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue
          const [k, ...rest] = line.split(':')
          const v = rest.join(':').replace(/^ /, '')
          if (k === 'id') id = v
          else if (k === 'event') event = v
          else if (k === 'data') data.push(v)
        }
        if (data.length) frames.push({ id, event, data: data.join('\n'), at: Date.now() })
      }
    }
    ended = true
  })()
  return {
    frames,
    get ended() {
      return ended
    },
    done: pump,
    cancel: () => reader.cancel().catch(() => {}),
  }
}

/** poll until the condition holds (no fixed sleeps) */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const start = Date.now()
  while (!(await cond())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}
