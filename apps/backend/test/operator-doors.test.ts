import { Code } from '@connectrpc/connect';
import { backendApi, encodeTable, fb } from '@wordgame/contracts';
import { randomUUID } from 'node:crypto';
import { asOperator, operatorToken } from './console-support.js';
import { failure, startHarness, type Harness } from './support/harness.js';
import { draftBody } from './support/wallet.js';

/**
 * The operator API's backend doors (CatalogAdminService, RefundService): a call must name an
 * operator holding the action's role, and every change is audited, exactly as on the console.
 */
describe('operator API doors name an operator, check its role and audit', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  const auditRows = (action: string) =>
    h.database.db
      .selectFrom('operator_audit as a')
      .leftJoin('operators as o', 'o.id', 'a.operator_id')
      .select(['o.login', 'a.action', 'a.target', 'a.outcome', 'a.detail'])
      .where('a.action', '=', action)
      .orderBy('a.id')
      .execute();
  const refundBody = (id: string) => encodeTable((b) => fb.OrderRefund.createOrderRefund(b, b.createString(id)));

  it('refuses a catalog change or listing that names no operator, and one whose operator lacks catalog_editor', async () => {
    const bare = h.bareClient(backendApi.CatalogAdminService);
    const draft = draftBody({ title: 'Nobody', atoms: [['chips', 1n]], prices: [['chips', 1n]] });
    expect(await failure(bare.upsertProduct({ body: draft }))).toEqual({
      code: Code.Unauthenticated,
      errorCode: 'operator_session_invalid',
    });
    expect(await failure(bare.listProducts({ body: encodeTable((b) => fb.ProductListQuery.createProductListQuery(b, true)) }))).toEqual({
      code: Code.Unauthenticated,
      errorCode: 'operator_session_invalid',
    });
    const viewer = await operatorToken(h.database.db, h.client(backendApi.ConsoleService), 'viewer-only', ['viewer']);
    expect(await failure(bare.upsertProduct({ body: draft }, asOperator(viewer)))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'operator_forbidden',
    });
    expect(await h.database.db.selectFrom('catalog_products').select('id').execute()).toEqual([]);
    expect(await auditRows('catalog_upsert')).toEqual([
      { login: 'viewer-only', action: 'catalog_upsert', target: '', outcome: 'forbidden', detail: 'needs catalog_editor' },
    ]);
  });

  it('audits every catalog change through the operator API with the operator it names', async () => {
    const admin = h.client(backendApi.CatalogAdminService);
    await admin.upsertProduct({ body: draftBody({ title: 'Audited', atoms: [['hints', 5n]], prices: [['chips', 5n]] }) });
    await failure(admin.upsertProduct({ body: draftBody({ title: 'Bad <b>', atoms: [['hints', 5n]], prices: [['chips', 5n]] }) }));
    const rows = (await auditRows('catalog_upsert')).filter((r) => r.login === 'harness-operator');
    expect(rows).toEqual([
      {
        login: 'harness-operator',
        action: 'catalog_upsert',
        target: expect.stringMatching(/^product:\d+$/) as unknown,
        outcome: 'ok',
        detail: 'created',
      },
      { login: 'harness-operator', action: 'catalog_upsert', target: 'product:new', outcome: 'refused', detail: 'invalid_title' },
    ]);
  });

  it('refuses a refund that names no operator or one without refunder, and audits a named one', async () => {
    const bare = h.bareClient(backendApi.RefundService);
    const orderId = randomUUID();
    expect(await failure(bare.refundOrder({ body: refundBody(orderId) }))).toEqual({
      code: Code.Unauthenticated,
      errorCode: 'operator_session_invalid',
    });
    const editor = await operatorToken(h.database.db, h.client(backendApi.ConsoleService), 'editor-only', ['catalog_editor']);
    expect(await failure(bare.refundOrder({ body: refundBody(orderId) }, asOperator(editor)))).toEqual({
      code: Code.PermissionDenied,
      errorCode: 'operator_forbidden',
    });
    const refunds = h.client(backendApi.RefundService);
    expect((await failure(refunds.refundOrder({ body: refundBody(orderId) }))).errorCode).toBe('unknown_order');
    expect(await auditRows('refund')).toEqual([
      { login: 'editor-only', action: 'refund', target: '', outcome: 'forbidden', detail: 'needs refunder' },
      { login: 'harness-operator', action: 'refund', target: `order:${orderId}`, outcome: 'failed', detail: 'unknown_order' },
    ]);
  });
});
