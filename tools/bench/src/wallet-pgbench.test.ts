import { BUY_STATEMENT_FILE, backendStatement, pgbenchReadStatement, pgbenchSpendStatement, READ_WALLET_FILE } from './wallet-pgbench.js';
import { root } from './services.js';

describe("the benches' peers run the backend's own statements", () => {
  it("finds wallet.get's and wallet.buy's statements in the backend's source and binds every parameter", () => {
    expect(backendStatement(root, READ_WALLET_FILE, 'READ_WALLET')).toMatch(/wallet_segments/);
    expect(backendStatement(root, BUY_STATEMENT_FILE, 'BUY_STATEMENT')).toMatch(/\$7::timestamptz/);
    expect(pgbenchReadStatement(root)).not.toMatch(/\$\d/);
    expect(pgbenchSpendStatement(root)).not.toMatch(/\$\d/);
  });
});
