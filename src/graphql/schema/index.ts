// Importing each domain registers its types and fields on the builder.
import { builder } from '../builder.js'
import './accounts.js'
import './exchanges.js'
import './flow.js'
import './funding.js'
import './markets.js'
import './open-interest.js'
import './profile.js'
import './signals.js'
import './structure.js'

export const schema = builder.toSchema({ sortSchema: true })
