// Importing each domain registers its output types (and the account fields, which are not REST endpoints) on the
// builder; the endpoints add the analytics root fields, and src/endpoints/index.ts builds the schema.
import './accounts.js'
import './exchanges.js'
import './flow.js'
import './funding.js'
import './markets.js'
import './open-interest.js'
import './profile.js'
import './signals.js'
import './structure.js'
import './liquidations.js'
import './stream.js'
