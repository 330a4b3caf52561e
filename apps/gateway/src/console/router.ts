import express, { Router, type Request, type Response } from 'express';
import { createConsoleClient } from './backend.js';
import { html } from '../http/index.js';
import { page, send, sendError } from './layout.js';
import { catalogEdit, catalogList, catalogSave } from './pages/catalog.js';
import { codeCreate, codeDetail, codeNew, codeReverse, codesList, createPromoClient } from './pages/codes.js';
import { ledgerExport } from './pages/export.js';
import { ledgerPage } from './pages/ledger.js';
import { loginAction, loginPage, logoutAction } from './pages/login.js';
import { reconciliationAct, reconciliationConfirm, reconciliationPage, createReconciliationClient } from './pages/reconciliation.js';
import { createPrivacyClient, userDeleteAction, userDeleteConfirm, userExport } from './pages/privacy.js';
import { createMakeGoodClient, grantAction, grantForm } from './pages/grant.js';
import { refundAction, refundConfirm } from './pages/refund.js';
import { createRevenueClient, revenueCsv, revenuePage } from './pages/revenue.js';
import { createSubscriptionsClient, subscriptionsPage } from './pages/subscriptions.js';
import { createHelpdeskClient, supportAct, supportCase, supportList } from './pages/support.js';
import { unmatchedPage } from './pages/unmatched.js';
import { userDetail, userModerate, usersSearch } from './pages/users.js';
import { guard } from './session.js';

/** What the console needs from configuration. */
export interface ConsoleOptions {
  /** The backend's Connect URL (ConsoleService). */
  backendUrl: string | readonly string[];
  /** BACKEND_SERVICE_TOKEN, presented on every console call to the backend. */
  backendToken: string;
  /** GATEWAY_CONSOLE_SECURE_COOKIE: mark the cookies Secure (behind TLS). */
  secureCookie: boolean;
  /** GATEWAY_CONSOLE_EXPORT_CAP: most rows one CSV export holds. */
  exportCap: number;
}

type Handler = (req: Request, res: Response) => Promise<void> | void;

/** Runs a page handler; an unexpected failure is logged and answered with an HTML error page. */
function safe(handler: Handler) {
  return (req: Request, res: Response): void => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((err: unknown) => {
        req.log.error({ err }, 'console page failed');
        if (!res.headersSent) sendError(res, 502, 'Something went wrong', 'The page could not be built; try again.', req.operator);
        else res.destroy();
      });
  };
}

/**
 * The operator console, mounted at /_gm: server-rendered pages behind sign-in. Every page, export
 * and action checks the operator's role here (and the backend re-checks it); every POST but the
 * sign-in form needs the session's CSRF token (the sign-in form its own pre-session nonce).
 */
export function createConsoleRouter(options: ConsoleOptions): Router {
  const client = createConsoleClient(options.backendUrl, options.backendToken);
  const reconciliation = createReconciliationClient(options.backendUrl, options.backendToken);
  const privacy = createPrivacyClient(options.backendUrl, options.backendToken);
  const helpdesk = createHelpdeskClient(options.backendUrl, options.backendToken);
  const makeGoods = createMakeGoodClient(options.backendUrl, options.backendToken);
  const revenue = createRevenueClient(options.backendUrl, options.backendToken);
  const promos = createPromoClient(options.backendUrl, options.backendToken);
  const subscriptions = createSubscriptionsClient(options.backendUrl, options.backendToken);
  const form = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 100 });
  const secure = options.secureCookie;
  const router = Router();

  router.get('/login', loginPage(secure));
  router.post('/login', form, safe(loginAction(client, secure)));
  router.post('/logout', form, guard(client, null), safe(logoutAction(client, secure)));
  router.get('/', guard(client, null), (req, res) => {
    const roles = req.operator?.roles ?? [];
    const links = [
      roles.includes('viewer') ? html`<li><a href="/_gm/ledger">Ledger</a></li>` : '',
      roles.includes('viewer') ? html`<li><a href="/_gm/unmatched">Unmatched stars payments</a></li>` : '',
      roles.includes('viewer') ? html`<li><a href="/_gm/reconciliation">Provider reconciliation</a></li>` : '',
      roles.includes('viewer') ? html`<li><a href="/_gm/support">Support cases</a></li>` : '',
      roles.includes('viewer') ? html`<li><a href="/_gm/revenue">Revenue</a></li>` : '',
      roles.includes('viewer') ? html`<li><a href="/_gm/codes">Promo codes</a></li>` : '',
      roles.includes('viewer') ? html`<li><a href="/_gm/subscriptions">Subscriptions</a></li>` : '',
      roles.includes('catalog_editor') ? html`<li><a href="/_gm/catalog">Catalog</a></li>` : '',
      roles.includes('moderator') ? html`<li><a href="/_gm/users">Users</a></li>` : '',
      roles.includes('granter') ? html`<li><a href="/_gm/grant">Make-good</a></li>` : '',
    ];
    send(res, 200, page('Console', html`<ul>${links}</ul>`, req.operator));
  });

  router.get('/ledger', guard(client, 'viewer'), safe(ledgerPage(client, options.exportCap)));
  router.get('/ledger/export.csv', guard(client, 'viewer'), safe(ledgerExport(client, options.exportCap)));
  router.get('/ledger/refund', guard(client, 'refunder'), safe(refundConfirm(client)));
  router.post('/ledger/refund', form, guard(client, 'refunder'), safe(refundAction(client)));

  router.get('/unmatched', guard(client, 'viewer'), safe(unmatchedPage(client)));
  router.get('/reconciliation', guard(client, 'viewer'), safe(reconciliationPage(reconciliation)));
  router.get('/reconciliation/act', guard(client, 'refunder'), safe(reconciliationConfirm(reconciliation)));
  router.post('/reconciliation/act', form, guard(client, 'refunder'), safe(reconciliationAct(reconciliation)));

  router.get('/revenue', guard(client, 'viewer'), safe(revenuePage(revenue)));
  router.get('/revenue.csv', guard(client, 'viewer'), safe(revenueCsv(revenue)));

  router.get('/grant', guard(client, 'granter'), safe(grantForm(makeGoods)));
  router.post('/grant', form, guard(client, 'granter'), safe(grantAction(makeGoods)));

  router.get('/support', guard(client, 'viewer'), safe(supportList(helpdesk)));
  router.get('/support/:id', guard(client, 'viewer'), safe(supportCase(helpdesk)));
  router.post('/support/:id/reply', form, guard(client, 'moderator'), safe(supportAct(helpdesk, 'reply')));
  router.post('/support/:id/resolve', form, guard(client, 'moderator'), safe(supportAct(helpdesk, 'resolve')));

  router.get('/codes', guard(client, 'viewer'), safe(codesList(promos)));
  router.get('/codes/new', guard(client, 'catalog_editor'), safe(codeNew()));
  router.post('/codes', form, guard(client, 'catalog_editor'), safe(codeCreate(promos)));
  router.get('/codes/:id', guard(client, 'viewer'), safe(codeDetail(promos)));
  router.post('/codes/:id/reverse', form, guard(client, 'refunder'), safe(codeReverse(promos)));
  router.get('/subscriptions', guard(client, 'viewer'), safe(subscriptionsPage(subscriptions)));

  router.get('/catalog', guard(client, 'catalog_editor'), safe(catalogList(client)));
  router.get('/catalog/new', guard(client, 'catalog_editor'), safe(catalogEdit(client)));
  router.get('/catalog/:id', guard(client, 'catalog_editor'), safe(catalogEdit(client)));
  router.post('/catalog/save', form, guard(client, 'catalog_editor'), safe(catalogSave(client)));

  router.get('/users', guard(client, 'moderator'), safe(usersSearch(client)));
  router.get('/users/:id', guard(client, 'moderator'), safe(userDetail(client)));
  router.post('/users/:id/moderate', form, guard(client, 'moderator'), safe(userModerate(client)));
  router.post('/users/:id/export', form, guard(client, 'moderator'), safe(userExport(privacy)));
  router.get('/users/:id/delete', guard(client, 'moderator'), safe(userDeleteConfirm(client)));
  router.post('/users/:id/delete', form, guard(client, 'moderator'), safe(userDeleteAction(client, privacy)));
  return router;
}
