import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { confirmByPage } from '@wordgame/testkit';
import { startChain, TELEGRAM_BOT_TOKEN, untrustedSession, VK_APP_SECRET, type Chain } from './support/chain.js';
import { call } from './support/edge.js';
import { nowSeconds, telegramInitData, vkLaunchParams } from './support/launch-data.js';

interface Grant {
  token: string;
  account_id: string;
  expires_at: string;
  platform: { kind: string | null; subtype: string | null };
}

describe('sessions and profile through gateway -> backend -> PostgreSQL', () => {
  let chain: Chain;
  let api: string;
  beforeAll(async () => {
    chain = await startChain();
    api = `${chain.edge.url}/api/v1`;
  }, 90_000);
  afterAll(async () => {
    await chain?.stop();
  });

  const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    call(`${api}${path}`, { method: 'POST', json, headers });

  it('telegram: valid init data opens a telegram session with no subtype', async () => {
    const res = await post('/session/telegram', {
      init_data: telegramInitData(TELEGRAM_BOT_TOKEN, { id: 4242, first_name: 'Ann' }, nowSeconds()),
    });
    expect(res.status).toBe(200);
    const grant = res.body as Grant;
    expect(grant.platform).toEqual({ kind: 'telegram', subtype: null });
    expect(grant.token).toMatch(/^\S{20,}$/);
    expect(grant.account_id).toMatch(/^[1-9][0-9]*$/);
    expect(Date.parse(grant.expires_at)).toBeGreaterThan(Date.now());
  });

  it('telegram: tampered init data is 401 launch_data_invalid, stale is 401 launch_data_stale', async () => {
    const good = telegramInitData(TELEGRAM_BOT_TOKEN, { id: 4243, first_name: 'Bob' }, nowSeconds());
    const tampered = good.replace(encodeURIComponent('"id":4243'), encodeURIComponent('"id":1'));
    expect(tampered).not.toBe(good);
    expect(await post('/session/telegram', { init_data: tampered })).toMatchObject({
      status: 401,
      body: { error: { code: 'launch_data_invalid' } },
    });
    const foreign = telegramInitData('999:another-bot', { id: 4243, first_name: 'Bob' }, nowSeconds());
    expect(await post('/session/telegram', { init_data: foreign })).toMatchObject({
      status: 401,
      body: { error: { code: 'launch_data_invalid' } },
    });
    const stale = telegramInitData(TELEGRAM_BOT_TOKEN, { id: 4243, first_name: 'Bob' }, nowSeconds() - 3 * 86_400);
    expect(await post('/session/telegram', { init_data: stale })).toMatchObject({
      status: 401,
      body: { error: { code: 'launch_data_stale' } },
    });
  });

  it('vk: the subtype comes from the signed vk_platform; tampered and stale are refused', async () => {
    const ios = await post('/session/vk', { launch_params: vkLaunchParams(VK_APP_SECRET, '777', 'mobile_iphone', nowSeconds()) });
    expect(ios).toMatchObject({ status: 200, body: { platform: { kind: 'vk', subtype: 'ios' } } });
    const android = await post('/session/vk', { launch_params: vkLaunchParams(VK_APP_SECRET, '778', 'mobile_android', nowSeconds()) });
    expect(android).toMatchObject({ status: 200, body: { platform: { kind: 'vk', subtype: 'android' } } });
    const forged = vkLaunchParams(VK_APP_SECRET, '779', 'mobile_android', nowSeconds()).replace(
      'vk_platform=mobile_android',
      'vk_platform=desktop_web',
    );
    expect(await post('/session/vk', { launch_params: forged })).toMatchObject({
      status: 401,
      body: { error: { code: 'launch_data_invalid' } },
    });
    const stale = vkLaunchParams(VK_APP_SECRET, '779', 'mobile_android', nowSeconds() - 3 * 86_400);
    expect(await post('/session/vk', { launch_params: stale })).toMatchObject({
      status: 401,
      body: { error: { code: 'launch_data_stale' } },
    });
  });

  it('direct: sign up, sign in, wrong password, taken e-mail; subtype is a best-effort hint', async () => {
    const up = await post('/session/direct', {
      email: 'carol@example.test',
      password: 'correct horse 1',
      mode: 'signup',
      subtype: 'android',
    });
    expect(up).toMatchObject({ status: 200, body: { platform: { kind: 'direct', subtype: 'android' } } });
    const inWeb = await post('/session/direct', { email: 'carol@example.test', password: 'correct horse 1', mode: 'signin' });
    expect(inWeb).toMatchObject({ status: 200, body: { platform: { kind: 'direct', subtype: null } } });
    expect((inWeb.body as Grant).account_id).toBe((up.body as Grant).account_id);
    expect(await post('/session/direct', { email: 'carol@example.test', password: 'wrong horse 11', mode: 'signin' })).toMatchObject({
      status: 401,
      body: { error: { code: 'invalid_credentials' } },
    });
    expect(await post('/session/direct', { email: 'carol@example.test', password: 'another pass 1', mode: 'signup' })).toMatchObject({
      status: 409,
      body: { error: { code: 'email_taken' } },
    });
    expect(await post('/session/direct', { email: 'dave@example.test', password: 'short', mode: 'signup' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_password' } },
    });
  });

  it('a deleted account releases its e-mail: the person signs up afresh as a new account; the old password opens nothing', async () => {
    const first = await post('/session/direct', { email: 'erin@example.test', password: 'first password 1', mode: 'signup' });
    expect(first.status).toBe(200);
    const old = first.body as Grant;
    const gone = await call(`${api}/user/account`, { method: 'DELETE', headers: { authorization: `Bearer ${old.token}` } });
    expect(gone.status).toBeLessThan(300);
    expect(await post('/session/direct', { email: 'erin@example.test', password: 'first password 1', mode: 'signin' })).toMatchObject({
      status: 401,
      body: { error: { code: 'invalid_credentials' } },
    });
    const again = await post('/session/direct', { email: 'Erin@example.test', password: 'second password 2', mode: 'signup' });
    expect(again).toMatchObject({ status: 200, body: { account_created: true } });
    expect((again.body as Grant).account_id).not.toBe(old.account_id);
    expect((await post('/session/direct', { email: 'erin@example.test', password: 'second password 2', mode: 'signin' })).status).toBe(200);
  });

  it('profile: inside a mini-app host only e-mail linking is offered; direct offers the platforms too', async () => {
    const tg = (
      await post('/session/telegram', { init_data: telegramInitData(TELEGRAM_BOT_TOKEN, { id: 5151, first_name: 'Eve' }, nowSeconds()) })
    ).body as Grant;
    const inHost = await call(`${api}/user/profile`, { headers: { authorization: `Bearer ${tg.token}` } });
    expect(inHost).toMatchObject({ status: 200, body: { platform: { kind: 'telegram', subtype: null }, sign_in_providers: ['email'] } });
    const vk = (await post('/session/vk', { launch_params: vkLaunchParams(VK_APP_SECRET, '5152', 'mobile_web', nowSeconds()) }))
      .body as Grant;
    const inVk = await call(`${api}/user/profile`, { headers: { authorization: `Bearer ${vk.token}` } });
    expect(inVk).toMatchObject({ status: 200, body: { sign_in_providers: ['email'] } });
    const direct = (
      await post('/session/direct', { email: 'frank@example.test', password: 'frank password', mode: 'signup', subtype: 'web' })
    ).body as Grant;
    const onWeb = await call(`${api}/user/profile`, { headers: { authorization: `Bearer ${direct.token}` } });
    expect(onWeb.status).toBe(200);
    expect((onWeb.body as { sign_in_providers: string[] }).sign_in_providers).toEqual(expect.arrayContaining(['email', 'telegram', 'vk']));
  });

  it("profile: linking an e-mail mails a confirmation link; its page's button confirms the address", async () => {
    const tg = (
      await post('/session/telegram', { init_data: telegramInitData(TELEGRAM_BOT_TOKEN, { id: 6161, first_name: 'Gus' }, nowSeconds()) })
    ).body as Grant;
    const auth = { authorization: `Bearer ${tg.token}` };
    const patched = await call(`${api}/user/profile`, {
      method: 'PATCH',
      headers: auth,
      json: { display_name: 'Gus G', email: 'gus@example.test' },
    });
    expect(patched).toMatchObject({
      status: 200,
      body: { display_name: 'Gus G', pending_email: 'gus@example.test', email_confirmed: false },
    });
    const mails = readdirSync(chain.backend.mailDir).filter((f) => f.endsWith('.eml'));
    const mail = mails.map((f) => readFileSync(join(chain.backend.mailDir, f), 'utf8')).find((m) => m.includes('gus@example.test'));
    const token = /confirm-email\?token=([A-Za-z0-9_%=-]+)/.exec((mail ?? '').replace(/=\r?\n/g, ''))?.[1];
    expect(token).toBeDefined();
    const en = { 'accept-language': 'en' };
    const bad = await confirmByPage(`${api}/user/profile/confirm-email?token=not-a-real-token`, en);
    expect(bad).toMatchObject({
      status: 400,
      outcome: 'error',
      message: expect.stringContaining('unknown, already used or expired') as string,
    });
    const confirmed = await confirmByPage(`${api}/user/profile/confirm-email?token=${token ?? ''}`, en);
    expect(confirmed).toMatchObject({ status: 200, outcome: 'confirmed', message: 'gus@example.test is confirmed.' });
    const profile = await call(`${api}/user/profile`, { headers: auth });
    expect(profile).toMatchObject({ status: 200, body: { email: 'gus@example.test', email_confirmed: true, pending_email: null } });
  });

  it('an untrusted (X-Platform none) session is view-only: profile and wallet reads pass; profile change and account delete are 403 untrusted_session', async () => {
    const owner = (await post('/session/direct', { email: 'ivy@example.test', password: 'ivy password 1', mode: 'signup', subtype: 'web' }))
      .body as Grant;
    const token = await untrustedSession(chain.db, owner.account_id);
    const auth = { authorization: `Bearer ${token}` };
    const state = async () => ({
      account: (await chain.db.query('select display_name, email, status, deleted_at from accounts where id = $1', [owner.account_id]))
        .rows,
      confirmations: (await chain.db.query('select email from email_confirmations where account_id = $1', [owner.account_id])).rows,
      sessions: (await chain.db.query('select count(*)::int as n from sessions where account_id = $1', [owner.account_id])).rows,
    });
    const before = await state();

    expect(await call(`${api}/user/profile`, { headers: auth })).toMatchObject({
      status: 200,
      body: { account_id: owner.account_id, platform: { kind: null, subtype: null } },
    });
    expect(await call(`${api}/user/wallet`, { headers: auth })).toMatchObject({ status: 200, body: { trusted: false } });
    const refused = { status: 403, body: { error: { code: 'untrusted_session' } } };
    expect(await call(`${api}/user/profile`, { method: 'PATCH', headers: auth, json: { display_name: 'Mallory' } })).toMatchObject(refused);
    expect(await call(`${api}/user/profile`, { method: 'PATCH', headers: auth, json: { email: 'mallory@example.test' } })).toMatchObject(
      refused,
    );
    expect(await call(`${api}/user/account`, { method: 'DELETE', headers: auth })).toMatchObject(refused);
    expect(await state()).toEqual(before);

    const trusted = { authorization: `Bearer ${owner.token}` };
    expect(await call(`${api}/user/profile`, { method: 'PATCH', headers: trusted, json: { display_name: 'Ivy' } })).toMatchObject({
      status: 200,
      body: { display_name: 'Ivy' },
    });
  });

  it('sign-out ends the session for the next request', async () => {
    const tg = (
      await post('/session/telegram', { init_data: telegramInitData(TELEGRAM_BOT_TOKEN, { id: 7171, first_name: 'Hal' }, nowSeconds()) })
    ).body as Grant;
    const auth = { authorization: `Bearer ${tg.token}` };
    expect((await call(`${api}/user/profile`, { headers: auth })).status).toBe(200);
    expect((await call(`${api}/session`, { method: 'DELETE', headers: auth })).status).toBe(204);
    expect(await call(`${api}/user/profile`, { headers: auth })).toMatchObject({
      status: 401,
      body: { error: { code: 'session_invalid' } },
    });
  });
});
