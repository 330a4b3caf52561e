import { connect } from 'node:net';
import nodemailer from 'nodemailer';
import { startMailCatcher, type MailCatcher } from './index.js';

/** Speaks SMTP line by line over a raw socket; answers every reply received. */
async function converse(port: number, lines: string[]): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let received = '';
  socket.on('data', (chunk: string) => (received += chunk));
  const waitFor = async (count: number): Promise<void> => {
    for (let i = 0; i < 200 && (received.match(/^\d{3} /gm) ?? []).length < count; i++) await new Promise((r) => setTimeout(r, 10));
  };
  await waitFor(1);
  let expected = 1;
  for (const line of lines) {
    socket.write(`${line}\r\n`);
    if (!line.includes('\r\n') || line.endsWith('\r\n.')) expected += 1;
    await waitFor(expected);
  }
  socket.destroy();
  return received;
}

describe('mail catcher', () => {
  let catcher: MailCatcher;
  beforeEach(async () => {
    catcher = await startMailCatcher({ smtpPort: 0, httpPort: 0, maxMessages: 3, maxBytes: 2048 });
  });
  afterEach(async () => {
    await catcher.stop();
  });

  it("catches a message sent by nodemailer (the backend's SMTP transport) and shows it as JSON", async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: catcher.smtpPort, secure: false, ignoreTLS: true });
    const link = `http://x/confirm-email?token=${'A'.repeat(90)}=`;
    await transport.sendMail({
      from: 'noreply@wordgame.test',
      to: 'ann@example.test',
      subject: 'Подтвердите адрес',
      text: `Здравствуйте! Подтвердите адрес: ${link}\n`,
    });
    transport.close();
    const list = (await (await fetch(`${catcher.url}/messages`)).json()) as {
      messages: Array<{ id: string; to: string[]; from: string; subject: string; raw?: string }>;
    };
    expect(list.messages).toHaveLength(1);
    const [mail] = list.messages;
    expect(mail).toMatchObject({ from: 'noreply@wordgame.test', to: ['ann@example.test'], subject: 'Подтвердите адрес' });
    expect(mail?.raw).toBeUndefined();
    const one = (await (await fetch(`${catcher.url}/messages/${mail?.id}`)).json()) as { raw: string; text: string };
    // Sent quoted-printable (soft line breaks, =3D): the text view reads as written.
    expect(one.raw).toContain('=3D');
    expect(one.text.replace(/\r\n/g, '\n').trimEnd()).toBe(`Здравствуйте! Подтвердите адрес: ${link}`);
    const raw = await fetch(`${catcher.url}/messages/${mail?.id}/raw`);
    expect(raw.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await raw.text()).toContain('Subject:');
  });

  it('removes dot-stuffing, keeps envelope recipients, filters by recipient and empties on DELETE', async () => {
    const replies = await converse(catcher.smtpPort, [
      'EHLO test',
      'MAIL FROM:<alerts@example.test>',
      'RCPT TO:<ops@example.test>',
      'RCPT TO:<oncall@example.test>',
      'DATA',
      'Subject: BotDisconnected\r\n\r\n..leading dot\r\nbody\r\n.',
      'QUIT',
    ]);
    expect(replies).toMatch(/^220 /);
    expect(replies).toContain('250 OK: message caught');
    expect(replies).toMatch(/^221 /m);
    const byTo = (await (await fetch(`${catcher.url}/messages?to=oncall@example.test`)).json()) as {
      messages: Array<{ id: string; subject: string }>;
    };
    expect(byTo.messages.map((m) => m.subject)).toEqual(['BotDisconnected']);
    expect(catcher.store.get(byTo.messages[0]?.id ?? '')?.raw).toBe('Subject: BotDisconnected\r\n\r\n.leading dot\r\nbody\r\n');
    expect(((await (await fetch(`${catcher.url}/messages?to=nobody@example.test`)).json()) as { messages: unknown[] }).messages).toEqual(
      [],
    );
    await fetch(`${catcher.url}/messages`, { method: 'DELETE' });
    expect(catcher.store.list()).toEqual([]);
  });

  it('refuses commands before a greeting or out of order, messages over the size limit, and keeps only the newest maxMessages', async () => {
    // Before EHLO/HELO every command is out of order (RFC 5321 4.1.4), and so is DATA before RCPT after it.
    const early = await converse(catcher.smtpPort, ['RCPT TO:<a@example.test>', 'DATA', 'MAIL FROM:<a@example.test>', 'DATA']);
    expect(early.match(/^503 /gm)).toHaveLength(4);
    const unordered = await converse(catcher.smtpPort, ['EHLO t', 'RCPT TO:<a@example.test>', 'MAIL FROM:<a@example.test>', 'DATA']);
    expect(unordered.match(/^503 /gm)).toHaveLength(2);
    const big = await converse(catcher.smtpPort, [
      'HELO t',
      'MAIL FROM:<a@example.test>',
      'RCPT TO:<b@example.test>',
      'DATA',
      `Subject: big\r\n\r\n${'x'.repeat(3000)}\r\n.`,
    ]);
    expect(big).toMatch(/^552 /m);
    expect(catcher.store.list()).toEqual([]);
    for (const n of [1, 2, 3, 4]) {
      await converse(catcher.smtpPort, ['HELO t', 'MAIL FROM:<>', 'RCPT TO:<b@example.test>', 'DATA', `Subject: m${n}\r\n\r\nx\r\n.`]);
    }
    expect(catcher.store.list().map((m) => m.subject)).toEqual(['m4', 'm3', 'm2']);
  });

  it('answers /livez and /readyz, and shows an HTML list with values escaped', async () => {
    await converse(catcher.smtpPort, [
      'HELO t',
      'MAIL FROM:<a@example.test>',
      'RCPT TO:<b@example.test>',
      'DATA',
      'Subject: <script>x</script>\r\n\r\nx\r\n.',
    ]);
    for (const path of ['/livez', '/readyz']) expect((await fetch(`${catcher.url}${path}`)).status).toBe(200);
    const html = await (await fetch(`${catcher.url}/`)).text();
    expect(html).toContain('&#60;script&#62;x&#60;/script&#62;');
    expect(html).not.toContain('<script>');
  });
});
