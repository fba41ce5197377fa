// Reading a recording file: one pass to validate it, keep its HTTP responses and its time line, and count its
// frames; WebSocket frames are streamed again from the file for every pass of the replay (they can be many).
import fs from 'node:fs'
import readline from 'node:readline'
import type { ExchangeId } from '../../domain/exchanges.js'
import { parseLine, RecordingFormatError, type HistoryLine, type HttpLine, type MetaLine, type WsLine } from './format.js'

export interface Recording {
  file: string
  /** HTTP responses in recorded order */
  http: HttpLine[]
  /** `at` of every HTTP and WebSocket line, in file order (ascending) */
  times: number[]
  venues: Set<ExchangeId>
  frameCount: number
  meta: MetaLine | null
  /** where a venue's history service planned its backfill (its pages are among `http`), in file order */
  history: HistoryLine[]
  /** the WebSocket frames in file order, read from the file */
  frames(): AsyncIterable<WsLine>
}

async function* lines(file: string): AsyncGenerator<{ text: string; no: number }> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })
  let no = 0
  try {
    for await (const text of rl) yield { text, no: ++no }
  } finally {
    rl.close()
  }
}

/** Reads and checks the whole file; throws RecordingFormatError naming the first bad line. */
export async function loadRecording(file: string): Promise<Recording> {
  const http: HttpLine[] = []
  const times: number[] = []
  const venues = new Set<ExchangeId>()
  let frameCount = 0
  let meta: MetaLine | null = null
  const history: HistoryLine[] = []
  let last = -Infinity
  for await (const { text, no } of lines(file)) {
    const line = parseLine(text, no)
    if (!line) continue
    if (line.kind === 'meta') {
      meta ??= line
      continue
    }
    if (line.kind === 'history') {
      history.push(line)
      continue
    }
    // frames are streamed in file order during the replay, so the file must already be in time order
    if (line.at < last) throw new RecordingFormatError(`line ${no}: at ${line.at} is earlier than the line before (${last}); a recording must be sorted by at`)
    last = line.at
    times.push(line.at)
    venues.add(line.venue)
    if (line.kind === 'http') http.push(line)
    else frameCount++
  }
  if (times.length === 0) throw new RecordingFormatError(`${file}: no http or ws lines`)
  return {
    file,
    http,
    times,
    venues,
    frameCount,
    meta,
    history,
    async *frames() {
      for await (const { text, no } of lines(file)) {
        const line = parseLine(text, no)
        if (line?.kind === 'ws') yield line
      }
    },
  }
}
