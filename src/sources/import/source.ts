// Byte sources (plain / .gz / .zip with one CSV inside) and a streaming line splitter with line numbers.
import { createReadStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { pipeline, type Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { createGunzip, gunzipSync } from 'node:zlib'
import yauzl from 'yauzl'
import { ImportFileError } from './errors.js'

const READ_CHUNK = 1 << 20
/** a "line" longer than this means a binary / wrong file, not a CSV */
const MAX_LINE = 1 << 16

export interface OpenedSource {
  stream: Readable
  /** for zips: name of the CSV entry inside */
  entryName: string | null
  close(): void
}

const isZip = (path: string) => /\.zip$/i.test(path)
const isGz = (path: string) => /\.gz$/i.test(path)

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (err, zf) => (err || !zf ? reject(err) : resolve(zf))),
  )
}

async function openZipEntry(path: string): Promise<OpenedSource> {
  let zf: yauzl.ZipFile
  try {
    zf = await openZip(path)
  } catch (e) {
    throw new ImportFileError(path, 0, `cannot read zip: ${(e as Error).message}`)
  }
  let closed = false
  const close = () => {
    if (!closed) {
      closed = true
      zf.close()
    }
  }
  try {
    const entries = await new Promise<yauzl.Entry[]>((resolve, reject) => {
      const list: yauzl.Entry[] = []
      zf.on('entry', (e: yauzl.Entry) => {
        list.push(e)
        zf.readEntry()
      })
      zf.once('end', () => resolve(list))
      zf.once('error', reject)
      zf.readEntry()
    })
    const files = entries.filter((e) => !e.fileName.endsWith('/') && !e.fileName.startsWith('__MACOSX/'))
    if (files.length !== 1) {
      throw new ImportFileError(path, 0, `zip must contain exactly one file, found ${files.length}: ${files.map((e) => e.fileName).join(', ')}`)
    }
    const entry = files[0]!
    const stream = await new Promise<Readable>((resolve, reject) =>
      zf.openReadStream(entry, (err, s) => (err || !s ? reject(err) : resolve(s))),
    )
    stream.once('close', close)
    return { stream, entryName: basename(entry.fileName), close: () => (stream.destroy(), close()) }
  } catch (e) {
    close()
    if (e instanceof ImportFileError) throw e
    throw new ImportFileError(path, 0, `cannot read zip: ${(e as Error).message}`)
  }
}

/** Open a file as a byte stream, transparently unpacking .gz and single-entry .zip. */
export async function openSource(path: string): Promise<OpenedSource> {
  if (isZip(path)) return openZipEntry(path)
  const file = createReadStream(path, { highWaterMark: READ_CHUNK })
  if (isGz(path)) {
    const gunzip = createGunzip({ chunkSize: READ_CHUNK })
    const stream = pipeline(file, gunzip, () => {}) as Readable
    return { stream, entryName: null, close: () => (file.destroy(), gunzip.destroy()) }
  }
  return { stream: file, entryName: null, close: () => file.destroy() }
}

/** Whole file as text (for small files: klines). */
export async function readSourceText(path: string): Promise<string> {
  if (isGz(path)) return gunzipSync(await readFile(path)).toString('utf8')
  if (!isZip(path)) return readFile(path, 'utf8')
  const src = await openSource(path)
  const parts: Buffer[] = []
  for await (const c of src.stream) parts.push(c as Buffer)
  return Buffer.concat(parts).toString('utf8')
}

export interface LineChunk {
  lines: string[]
  /** line number of lines[0] (1-based) */
  firstLine: number
}

/**
 * Split a byte stream into lines (LF or CRLF; a UTF-8 BOM is dropped), one array per read chunk so the per-line
 * cost stays a slice. Trailing text without a final newline is the last line.
 */
export async function* readLineChunks(stream: AsyncIterable<Buffer | string>, file: string): AsyncGenerator<LineChunk> {
  const decoder = new StringDecoder('utf8')
  let carry = ''
  let lineNo = 1
  let first = true
  for await (const chunk of stream) {
    let text = carry + (typeof chunk === 'string' ? chunk : decoder.write(chunk))
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      first = false
    }
    const lines: string[] = []
    let start = 0
    let idx: number
    while ((idx = text.indexOf('\n', start)) !== -1) {
      const end = idx > start && text.charCodeAt(idx - 1) === 13 ? idx - 1 : idx
      lines.push(text.slice(start, end))
      start = idx + 1
    }
    carry = start === 0 ? text : text.slice(start)
    if (carry.length > MAX_LINE) throw new ImportFileError(file, lineNo + lines.length, `line longer than ${MAX_LINE} characters: not a CSV text file?`)
    if (lines.length > 0) {
      yield { lines, firstLine: lineNo }
      lineNo += lines.length
    }
  }
  const tail = carry + decoder.end()
  if (tail.length > 0) {
    const t = first && tail.charCodeAt(0) === 0xfeff ? tail.slice(1) : tail
    const line = t.endsWith('\r') ? t.slice(0, -1) : t
    yield { lines: [line], firstLine: lineNo }
  }
}

/** The first `n` non-blank lines of a file (after decompression), with their line numbers. */
export async function peekLines(path: string, n: number): Promise<{ lines: { line: number; text: string }[]; entryName: string | null }> {
  const src = await openSource(path)
  const out: { line: number; text: string }[] = []
  try {
    outer: for await (const chunk of readLineChunks(src.stream, path)) {
      for (let i = 0; i < chunk.lines.length; i++) {
        const text = chunk.lines[i]!
        if (text.trim() === '') continue
        out.push({ line: chunk.firstLine + i, text })
        if (out.length >= n) break outer
      }
    }
  } catch (e) {
    if (e instanceof ImportFileError) throw e
    throw new ImportFileError(path, 0, `cannot read: ${(e as Error).message}`)
  } finally {
    src.close()
  }
  return { lines: out, entryName: src.entryName }
}
