// Raw text of parts of a JSON document (byte-for-byte slices, whatever the indentation), from jsonc-parser's tree.
import { findNodeAtLocation, parseTree, type Node, type ParseError } from 'jsonc-parser'

function tree(text: string): Node {
  const errors: ParseError[] = []
  const root = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true })
  if (!root || errors.length) throw new Error(`not valid JSON (error at offset ${errors[0]?.offset ?? 0})`)
  return root
}

const slice = (text: string, n: Node) => text.slice(n.offset, n.offset + n.length)

/** the elements of a top-level array, each as written in the file */
export function jsonArrayElements(text: string): string[] {
  const root = tree(text)
  if (root.type !== 'array') throw new Error('not a JSON array')
  return (root.children ?? []).map((n) => slice(text, n))
}

/** the value of a top-level object's member, as written in the file */
export function jsonMemberText(text: string, key: string): string {
  const node = findNodeAtLocation(tree(text), [key])
  if (!node) throw new Error(`no member ${key}`)
  return slice(text, node)
}
