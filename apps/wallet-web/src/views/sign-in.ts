import type { Translator } from '@wordgame/i18n';
import { signInDirect, type Session } from '../session.js';
import { el, replace } from '../ui/dom.js';
import { errorText } from '../ui/words.js';

/**
 * The web's sign-up / sign-in form (`session.direct`); calls `done` with the opened session. Only
 * the button names the action (sign in, or create the account); the heading names the form and
 * the choice asks whether the player has an account.
 */
export function signInView(t: Translator, done: (session: Session) => void): HTMLElement {
  const message = el('p', { id: 'signin-message', role: 'alert' });
  const radio = (mode: 'signup' | 'signin', checked: boolean) =>
    el('label', { class: 'choice' }, el('input', { type: 'radio', name: 'mode', value: mode, checked }), ' ', t.t(`wallet.mode_${mode}`));
  const email = el('input', { id: 'signin-email', name: 'email', type: 'email', autocomplete: 'email', required: true });
  const password = el('input', {
    id: 'signin-password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    minlength: '8',
    required: true,
  });
  const submit = el('button', { type: 'submit', id: 'signin-submit' }, t.t('wallet.signin'));
  const form = el(
    'form',
    { id: 'signin-form' },
    el('fieldset', {}, el('legend', {}, t.t('wallet.mode_label')), radio('signin', true), radio('signup', false)),
    el('label', { for: 'signin-email' }, t.t('wallet.email')),
    email,
    el('label', { for: 'signin-password' }, t.t('wallet.password')),
    password,
    submit,
    message,
  );
  const mode = (): 'signup' | 'signin' => (new FormData(form).get('mode') === 'signup' ? 'signup' : 'signin');
  form.addEventListener('change', () => {
    replace(submit, t.t(`wallet.${mode()}`));
    password.autocomplete = mode() === 'signup' ? 'new-password' : 'current-password';
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    signInDirect(email.value.trim(), password.value, mode())
      .then(done)
      .catch((err: unknown) => {
        replace(message, errorText(t, err));
        submit.disabled = false;
      });
  });
  return el('section', { 'aria-labelledby': 'signin-title' }, el('h2', { id: 'signin-title' }, t.t('wallet.signin_title')), form);
}
