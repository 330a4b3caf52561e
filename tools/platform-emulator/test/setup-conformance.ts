import { takeDivergences } from '../src/test-helpers.js';

// Every emulator started with startCheckedEmulator reports answers that differ from the published
// Bot API types; a test after which any was seen fails, naming the method and the schema's reasons.
afterEach(() => {
  const seen = takeDivergences();
  if (seen.length > 0) {
    const lines = seen.map((d) => `${d.method} ${d.status} ${d.part}: ${d.problems.join('; ')}`);
    throw new Error(`the emulator answered outside the published Bot API types:\n${lines.join('\n')}`);
  }
});
