export declare const ROOT: string
/** transpile `dirs` (default ['src']) into dist/<hash>/ and return that directory */
export declare function build(dirs?: string[]): Promise<string>
