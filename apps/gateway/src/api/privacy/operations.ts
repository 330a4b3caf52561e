import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { BackendClients } from '../../backend/index.js';
import type { Operation } from '../operation.js';
import { accountExportWire, type AccountExportJson } from './wire.js';

/**
 * Reads an AccountExport body: the backend's JSON document, checked against the published schema
 * (a document that drifted from it is a 500 here, never relayed unchecked).
 */
export function readAccountExport(body: Uint8Array): AccountExportJson {
  const document = decodeTable(
    body,
    (bb) => fb.AccountExport.getRootAsAccountExport(bb),
    (t) => t.document() ?? '',
  );
  return accountExportWire.parse(JSON.parse(document) as unknown);
}

/** The export of one account's data as the console's operator asks for it (moderator role; audited by the backend). */
export function exportAccountBody(accountId: bigint): Uint8Array {
  return encodeTable((b) => fb.AccountExportFor.createAccountExportFor(b, accountId));
}

/** The player's own data export: any session of the account; rate-limited per account and client address. */
export function privacyOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'user.export',
      method: 'get',
      path: '/api/v1/user/export',
      auth: 'session',
      doc: {
        tag: 'profile',
        summary: "Export the caller's data",
        description:
          'Everything kept about the account as one JSON document: profile, platform identities, open sessions, wallet (segments, benefits), orders with their events, ledger, support cases, monthly passes (subscriptions) with their paid periods. Money is in integer minor units, written as strings.',
        success: { status: 200, description: 'The export.', body: accountExportWire },
        errors: ['rate_limited'],
      },
      async handle({ call }) {
        const body = encodeTable((b) => fb.AccountExportQuery.createAccountExportQuery(b));
        return { status: 200, body: readAccountExport((await backend.privacy.exportAccount({ body }, call)).body) };
      },
    },
  ];
}
