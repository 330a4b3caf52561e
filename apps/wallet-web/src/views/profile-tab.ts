import { call } from '../api/client.js';
import type { ProfileJson } from '../api/types.js';
import type { App } from '../app.js';
import { el, replace } from '../ui/dom.js';
import { errorText } from '../ui/words.js';

const HOSTS = new Set(['telegram', 'vk']);

/**
 * The profile tab: the display name and the e-mail (confirmed, pending or none) with a form to link
 * one. On the web it lists the sign-in providers; inside a mini-app host only e-mail linking is
 * offered and the competing platforms' sign-in is not shown.
 */
export async function profileTab(app: App): Promise<HTMLElement> {
  const { t } = app;
  const profile = await call<ProfileJson>('/user/profile', { token: app.session.token });
  const message = el('p', { id: 'profile-message', role: 'status', 'aria-live': 'polite' });
  const inHost = HOSTS.has(profile.platform.kind ?? '');

  const nameInput = el('input', {
    id: 'display-name',
    name: 'display_name',
    type: 'text',
    maxlength: '64',
    autocomplete: 'nickname',
    value: profile.display_name,
    required: true,
  });
  const nameForm = el(
    'form',
    { id: 'name-form', class: 'row' },
    el('label', { for: 'display-name' }, t.t('wallet.display_name')),
    nameInput,
    el('button', { type: 'submit' }, t.t('wallet.save')),
  );
  nameForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void update(app, message, { display_name: nameInput.value.trim() }, () => t.t('wallet.saved'));
  });

  const emailState = el('p', { id: 'email-state', 'data-confirmed': String(profile.email_confirmed) }, emailText(app, profile));
  const emailInput = el('input', {
    id: 'email',
    name: 'email',
    type: 'email',
    autocomplete: 'email',
    required: true,
    value: profile.pending_email ?? profile.email ?? '',
  });
  const emailForm = el(
    'form',
    { id: 'email-form', class: 'row' },
    el('label', { for: 'email' }, t.t('wallet.email')),
    emailInput,
    // Next to a confirmed address the form changes it; "link" is for an account without one yet.
    el('button', { type: 'submit', id: 'email-submit' }, t.t(profile.email_confirmed ? 'wallet.change_email' : 'wallet.link_email')),
  );
  emailForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const email = emailInput.value.trim();
    void update(app, message, { email }, (p) => {
      replace(emailState, emailText(app, p));
      return t.t('wallet.link_email_sent', { email });
    });
  });

  const providers = inHost
    ? el('p', { id: 'host-note' }, t.t('wallet.host_profile_note'))
    : el(
        'div',
        {},
        el('h3', { id: 'providers-title' }, t.t('wallet.sign_in_providers')),
        el(
          'ul',
          { id: 'providers', class: 'facts', 'aria-labelledby': 'providers-title' },
          ...profile.sign_in_providers.map((p) => el('li', { 'data-provider': p }, `${providerName(app, p)} — ${providerWhere(app, p)}`)),
        ),
      );
  return el(
    'section',
    { 'aria-labelledby': 'profile-title' },
    el('h2', { id: 'profile-title' }, t.t('wallet.profile')),
    nameForm,
    emailState,
    emailForm,
    providers,
    message,
  );
}

async function update(
  app: App,
  message: HTMLElement,
  body: { display_name?: string; email?: string },
  done: (profile: ProfileJson) => string,
): Promise<void> {
  try {
    const profile = await call<ProfileJson>('/user/profile', { method: 'PATCH', token: app.session.token, body });
    message.dataset['kind'] = 'ok';
    replace(message, done(profile));
  } catch (err: unknown) {
    message.dataset['kind'] = 'error';
    replace(message, errorText(app.t, err));
  }
}

function emailText(app: App, profile: ProfileJson): string {
  const { t } = app;
  if (profile.pending_email) return t.t('wallet.email_pending', { email: profile.pending_email });
  if (profile.email && profile.email_confirmed) return `${profile.email} — ${t.t('wallet.email_confirmed')}`;
  return t.t('wallet.email_none');
}

/**
 * Where a sign-in method is used: e-mail on this page; a host platform only from the game's
 * mini-app inside it (the web page has no Telegram or VK sign-in button), so the list is facts,
 * not links, and says so instead of looking like buttons.
 */
function providerWhere(app: App, provider: string): string {
  return HOSTS.has(provider) ? app.t.t('wallet.provider_in_host', { host: providerName(app, provider) }) : app.t.t('wallet.provider_here');
}

function providerName(app: App, provider: string): string {
  if (provider === 'email') return app.t.t('wallet.provider_email');
  if (provider === 'telegram') return app.t.t('wallet.provider_telegram');
  if (provider === 'vk') return app.t.t('wallet.provider_vk');
  return provider;
}
