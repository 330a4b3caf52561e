import { connector } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import type { ChildService } from '@wordgame/testkit';
import { command, startBotProcess } from './support/bot.js';
import { tempCerts } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

/**
 * Issue #26 item 5: by the spec any 2xx stamps liveness, and only a transport error or a 5xx is
 * counted as a failure. A 2xx whose body the bot cannot read (a proxy answering 200 with HTML) is a
 * failed call for its caller, counted in Health's additive field 9. The bot runs as a real process
 * against the platform emulator answering that HTML to every call it makes.
 */

const HTML = '<html><body>Welcome to nginx!</body></html>';
const POLLS = 24;
const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;
let child: ChildService | undefined;

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
});

afterAll(async () => {
  await child?.stop();
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

describe('a platform (or a proxy in front of it) answering 200 with HTML', () => {
  it('stamps liveness, is counted as unreadable (not as a failure), backs off and never ends the bot', async () => {
    // Every call the bot makes is answered with the HTML page: getMe at start, the long poll, a command's sendMessage.
    emu.control.addFault({ method: 'getMe', body: HTML, contentType: 'text/html' });
    emu.control.addFault({ method: 'sendMessage', body: HTML, contentType: 'text/html' });
    emu.control.addFault({ method: 'getUpdates', body: HTML, contentType: 'text/html', times: POLLS });
    const started = await startBotProcess(gateway, certs, emu.apiRoot, {
      BOT_POLL_RETRY_INITIAL_MS: '100',
      BOT_POLL_RETRY_MAX_MS: '200',
    });
    child = started.child;
    const { session } = started;
    const user = emu.control.createUser({ started: true }).user.id;
    const ack = await command(session, {
      case: 'sendToUser',
      value: { recipient: { kind: connector.PlatformKind.TELEGRAM, externalId: String(user) }, text: 'hi' },
    });
    expect(ack.delivered).toBe(false);
    expect(ack.error).toMatch(/not a Bot API envelope/);

    // Liveness is stamped while nothing but HTML has come back.
    await waitFor(() => session.healths().some((h) => h.lastOkUnix > 0n), 'a Health with last_ok_unix stamped');
    expect(emu.control.faults().some((f) => f.method === 'getUpdates')).toBe(true);
    const methods = emu.control.calls().map((c) => c.method);
    expect(methods.filter((m) => m !== 'getUpdates' && m !== 'setMyCommands').sort()).toEqual(['getMe', 'sendMessage']);

    await waitFor(() => emu.control.faults().length === 0, 'every HTML answer taken', 20_000);
    const sum = (field: 'platformUnreadableResponses' | 'connectFailures' | 'apiErrors'): bigint =>
      session.healths().reduce((total, h) => total + h[field], 0n);
    await waitFor(() => sum('platformUnreadableResponses') === BigInt(POLLS + 2), 'Health counting every HTML answer as unreadable');
    expect(sum('connectFailures')).toBe(0n);
    expect(sum('apiErrors')).toBe(0n);

    // The long poll backed off between the HTML answers (no hot loop), and goes on polling afterwards.
    const polls = emu.control.calls('getUpdates');
    const gaps = polls.slice(1, POLLS).map((c, i) => Date.parse(c.at) - Date.parse(polls[i]!.at));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(70);
    const pollsBefore = polls.length;
    await waitFor(() => emu.control.calls('getUpdates').length > pollsBefore + 1, 'the bot still polling');
    expect(() => process.kill(started.child.pid, 0)).not.toThrow();
    expect(gateway.sessions).toHaveLength(1);
  }, 60_000);
});
