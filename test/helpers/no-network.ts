// Imported for its effect: a test process that loads this can reach loopback (the service under test, the local
// PostgreSQL) and nothing else; any other TCP connection fails loudly (no test may reach a venue). The guard itself
// is no-network.mjs, which spawned service processes load with node --import (test/helpers/process.ts).
import './no-network.mjs'
