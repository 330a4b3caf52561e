import type { MessageKey } from '@wordgame/i18n';
import { call } from '../api/client.js';
import type { HistoryEntryJson, HistoryJson } from '../api/types.js';
import type { App } from '../app.js';
import { el, replace } from '../ui/dom.js';
import { amount, chipsText, errorText, paidText, segmentName } from '../ui/words.js';

/** Entries asked per page; "show older" asks the next page with the cursor the last one gave. */
export const HISTORY_PAGE = 10;

/**
 * The history tab: every order (any state) and ledger operation of the player, newest first, a page
 * at a time. Each entry says what it was (product, amount with its currency or chips, the rail, the
 * state, the date) and, in words, what a refund took back, a debt it left and a receipt sent.
 */
export async function historyTab(app: App): Promise<HTMLElement> {
  const { t } = app;
  const list = el('ol', { id: 'history', class: 'cards' });
  const more = el('button', { type: 'button', id: 'history-more', class: 'link' }, t.t('wallet.history_more'));
  const message = el('p', { id: 'history-message', role: 'status', 'aria-live': 'polite' });
  let cursor: string | null = null;

  const load = async (): Promise<void> => {
    const query = new URLSearchParams({ limit: String(HISTORY_PAGE), ...(cursor ? { cursor } : {}) });
    const page = await call<HistoryJson>(`/user/wallet/history?${query.toString()}`, { token: app.session.token });
    list.append(...page.entries.map((e) => entryItem(app, e)));
    cursor = page.next_cursor;
    more.hidden = cursor === null;
  };
  more.addEventListener('click', () => {
    if (more.disabled) return;
    more.disabled = true;
    load()
      .catch((err: unknown) => replace(message, errorText(t, err)))
      .finally(() => {
        more.disabled = false;
      });
  });
  await load();
  return el(
    'section',
    { 'aria-labelledby': 'history-title' },
    el('h2', { id: 'history-title' }, t.t('wallet.history')),
    list.childElementCount > 0 ? list : el('p', { id: 'history-empty' }, t.t('wallet.history_empty')),
    more,
    message,
  );
}

function entryItem(app: App, e: HistoryEntryJson): HTMLElement {
  const { t } = app;
  const when = e.at ? new Date(e.at) : null;
  const facts = [
    e.amount !== null && e.currency !== null
      ? paidText(t, e.amount, e.currency)
      : e.chips !== '0' && `${e.chips.startsWith('-') ? '' : '+'}${chipsText(t, e.chips)}`,
    e.kind !== 'grant' &&
      e.kind !== 'make_good' &&
      t.t(e.rail === 'card' ? 'wallet.rail_card' : e.rail === 'stars' ? 'wallet.rail_stars' : 'wallet.rail_chips'),
    stateWord(app, e.state),
  ].filter((f): f is string => typeof f === 'string');
  const leftDebt = e.kind === 'refund' && e.in_debt;
  return el(
    'li',
    { 'data-entry-id': e.entry_id, 'data-kind': e.kind, 'data-state': e.state, class: leftDebt ? 'debt' : undefined },
    el('span', { class: 'label' }, headline(app, e)),
    el('strong', { class: 'value' }, facts.join(' · ')),
    when && el('time', { class: 'detail', datetime: e.at ?? undefined }, dateText(app, when)),
    ...explanations(app, e).map((text) => el('span', { class: 'detail' }, text)),
  );
}

function headline(app: App, e: HistoryEntryJson): string {
  const { t } = app;
  const title = e.title !== '' ? e.title : t.t('wallet.history_product_unknown');
  if (e.kind === 'order') return t.t('wallet.history_order', { title });
  if (e.kind === 'refund') return t.t('wallet.history_refund', { title });
  if (e.kind === 'spend') return t.t('wallet.history_spend', { title });
  if (e.kind === 'purchase') return t.t('wallet.history_purchase', { title });
  // The operator's reason is an internal note (it may name a case, a refund or other players): the player sees who granted it.
  if (e.kind === 'make_good') return t.t('wallet.history_make_good');
  if (e.kind === 'code_grant') return t.t('wallet.history_code_grant');
  if (e.kind === 'reversal') return t.t('wallet.history_reversal');
  return e.title !== '' ? t.t('wallet.history_grant_of', { title }) : t.t('wallet.history_grant');
}

function stateWord(app: App, state: string): string {
  const key = `wallet.state_${state}`;
  return app.t.has(key) ? app.t.t(key as MessageKey) : state;
}

/** What the player should know about an entry beyond its facts, each a sentence. */
function explanations(app: App, e: HistoryEntryJson): string[] {
  const { t } = app;
  const segment = e.segment ? segmentName(t, e.segment) : '';
  const out: string[] = [];
  if (e.chips !== '0' && e.segment) {
    const words = chipsText(t, e.chips.replace(/^-/, ''));
    out.push(t.t(e.chips.startsWith('-') ? 'wallet.history_chips_out' : 'wallet.history_chips_in', { chips: words, segment }));
  }
  if (e.kind === 'make_good' && e.hints !== '0') out.push(t.t('wallet.history_make_good_hints', { count: amount(e.hints, t.language) }));
  if (e.kind === 'make_good' && e.no_ads_days !== '0')
    out.push(t.t('wallet.history_make_good_no_ads', { count: amount(e.no_ads_days, t.language) }));
  if (e.kind === 'order' && e.refunded_at) out.push(t.t('wallet.history_refunded_on', { date: dateText(app, new Date(e.refunded_at)) }));
  if (e.kind === 'order' && e.state === 'failed' && e.failure_reason) out.push(t.t('wallet.history_failed', { reason: e.failure_reason }));
  if (e.kind === 'order' && e.state === 'expired') out.push(t.t('wallet.history_expired'));
  if (e.kind === 'refund' && e.amount !== null && e.currency !== null)
    out.push(t.t('wallet.history_refund_money', { amount: paidText(t, e.amount, e.currency) }));
  // A refund of chips already spent is what makes a debt; later entries only say it is still there.
  if (e.balance_after !== null && e.balance_after.startsWith('-'))
    out.push(
      t.t(e.kind === 'refund' ? 'wallet.history_debt' : 'wallet.history_debt_left', { segment, balance: chipsText(t, e.balance_after) }),
    );
  if (e.kind === 'refund' && e.hints_after !== null && e.hints_after.startsWith('-'))
    out.push(t.t('wallet.history_hints_debt', { count: amount(e.hints_after.replace(/^-/, ''), t.language) }));
  if (e.receipt) out.push(t.t('wallet.history_receipt'));
  if (e.refund_receipt) out.push(t.t('wallet.history_refund_receipt'));
  return out;
}

function dateText(app: App, date: Date): string {
  return new Intl.DateTimeFormat(app.t.language, { dateStyle: 'long', timeStyle: 'short' }).format(date);
}
