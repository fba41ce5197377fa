// Importing each domain registers its types and fields on the builder.
import { builder } from '../builder.js'
import './accounts.js'
import './exchanges.js'

export const schema = builder.toSchema({ sortSchema: true })
