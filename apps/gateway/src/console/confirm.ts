import { createHmac, timingSafeEqual } from 'node:crypto';
import { html, type SafeHtml } from '../http/index.js';
import { csrfField, page } from './layout.js';
import type { ConsoleOperator } from './operator.js';

/** One line of what an action is about to do: a machine name (`data-fact`), its label and its value. */
export interface ConfirmFact {
  name: string;
  label: string;
  value: SafeHtml | string;
}

/** A confirmation page: the question, the facts, the confirming form and the way back. */
export interface Confirmation {
  title: string;
  /** The question the operator answers, in words. */
  question: SafeHtml;
  /** What the action acts on, shown as a table (`#facts`); none for a page that says it all in the question. */
  facts: readonly ConfirmFact[];
  /** The POST target and its hidden fields (the CSRF field is added). */
  action: string;
  fields: Readonly<Record<string, string>>;
  /** The confirming button's label. */
  button: string;
  back: { href: string; label: string };
  /** Shown above the question, e.g. why the page is shown again. */
  notice?: SafeHtml;
  /** The form's element id (`confirm-form` unless named). */
  formId?: string;
}

/**
 * A POST form of hidden `fields` and one button (`#confirm`), with the session's CSRF field: the
 * one way a console money action is confirmed (the confirmation page's form, and the "press again"
 * forms of an outcome page).
 */
export function confirmForm(
  operator: ConsoleOperator,
  action: string,
  fields: Readonly<Record<string, string>>,
  button: string,
  formId = 'confirm-form',
): SafeHtml {
  return html`<form method="post" action="${action}" id="${formId}">${csrfField(operator)}
${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" id="confirm">${button}</button></form>`;
}

/**
 * The console's confirmation page for an action that moves money: nothing happens on the GET (or
 * on a POST that did not come from this page); only this page's form acts.
 */
export function confirmationPage(operator: ConsoleOperator, c: Confirmation): SafeHtml {
  const facts =
    c.facts.length === 0
      ? ''
      : html`<table id="facts">${c.facts.map((f) => html`<tr data-fact="${f.name}"><th>${f.label}</th><td>${f.value}</td></tr>`)}</table>`;
  return page(
    c.title,
    html`${c.notice ?? ''}<p id="question">${c.question}</p>
${facts}
${confirmForm(operator, c.action, c.fields, c.button, c.formId)}
<p><a id="back" href="${c.back.href}">${c.back.label}</a></p>`,
    operator,
  );
}

/**
 * The token a confirmation page's form carries (`confirm`): an HMAC, keyed by the session token, of
 * what the page showed. A POST without it, from another session, or for a picture that has changed
 * since (another amount, order state, player) does not carry the right one, and is shown the
 * confirmation page again instead of acting.
 */
export function confirmToken(sessionToken: string, shown: readonly string[]): string {
  return createHmac('sha256', sessionToken)
    .update(`wordgame-console-confirm-v1 ${JSON.stringify(shown)}`)
    .digest('base64url');
}

/** Constant-time check of a submitted confirmation token against the one for `shown`. */
export function confirmValid(sessionToken: string, shown: readonly string[], submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const expected = Buffer.from(confirmToken(sessionToken, shown));
  const given = Buffer.from(submitted);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
