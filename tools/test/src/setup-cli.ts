// `node --import tsx tools/test/src/setup-cli.ts [--ci]`: the programs of the test command's set-up
// without starting anything (PostgreSQL is the test command's own): finds them, installs the missing
// ones from Debian where we are root, prints the one line. --ci adds the ones CI's checks run before
// the tests (promtool, amtool, the PostgreSQL client); .ci/run calls it so the package list lives in
// setup.ts alone. Exits 0: what is missing fails the checks and tests that need it, by name.
import { prepareTestSetup } from './setup.js';

const setup = await prepareTestSetup({ tools: process.argv.includes('--ci') ? 'ci' : 'tests', postgres: false });
for (const line of setup.provided) console.log(`  ${line}`);
console.log(setup.summary);
