export declare const ROOT: string
/** the V8 flags the service runs with (package.json's start script) */
export declare const NODE_FLAGS: string[]
/** transpile `dirs` (default ['src']) into dist/<hash>/ and return that directory */
export declare function build(dirs?: string[]): Promise<string>
