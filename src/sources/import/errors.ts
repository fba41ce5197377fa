/** A problem in an import file. `line` is the 1-based physical line number (header and blank lines count); 0 = file-level. */
export class ImportFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(line > 0 ? `${file}:${line}: ${reason}` : `${file}: ${reason}`)
    this.name = 'ImportFileError'
  }
}

export interface RowError {
  line: number
  message: string
}
