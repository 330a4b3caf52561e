import { z } from 'zod';
import { ConfigError, env, parseConfig } from './parse.js';

const schema = z.object({
  BOTLINK_PORT: env.port(),
  GATEWAY_HTTP_PORT: env.port(8080),
  OWNS_UPDATES: env.bool(false),
  BACKEND_URL: env.url(),
  PLATFORM_BOT_TOKEN: env.str(),
});

function problemsOf(source: Record<string, string>): readonly string[] {
  try {
    parseConfig(schema, source);
  } catch (err: unknown) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const good = { BOTLINK_PORT: '8443', BACKEND_URL: 'http://127.0.0.1:4000', PLATFORM_BOT_TOKEN: 't' };

describe('parseConfig', () => {
  it('parses and applies defaults', () => {
    expect(parseConfig(schema, good)).toEqual({
      BOTLINK_PORT: 8443,
      GATEWAY_HTTP_PORT: 8080,
      OWNS_UPDATES: false,
      BACKEND_URL: 'http://127.0.0.1:4000',
      PLATFORM_BOT_TOKEN: 't',
    });
  });

  it("names the operator's variable when the deployment filled this one from it (CONFIG_FROM), never echoing a secret", () => {
    const token = z.object({ BACKEND_TELEGRAM_BOT_TOKEN: env.token() });
    const run = (source: Record<string, string>) => {
      try {
        parseConfig(token, source);
      } catch (err: unknown) {
        if (err instanceof ConfigError) return err.problems;
        throw err;
      }
      return [];
    };
    const placeholder = "<the bot's token from @BotFather>";
    const [named] = run({ BACKEND_TELEGRAM_BOT_TOKEN: placeholder, CONFIG_FROM: 'BACKEND_TELEGRAM_BOT_TOKEN=PLATFORM_BOT_TOKEN' });
    expect(named).toMatch(/^PLATFORM_BOT_TOKEN \(this process's BACKEND_TELEGRAM_BOT_TOKEN\): /);
    expect(named).not.toContain('BotFather');
    const [plain] = run({ BACKEND_TELEGRAM_BOT_TOKEN: placeholder });
    expect(plain).toMatch(/^BACKEND_TELEGRAM_BOT_TOKEN: /);
  });

  it('names a bad port', () => {
    const problems = problemsOf({ ...good, BOTLINK_PORT: 'abc' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^BOTLINK_PORT: must be a port number 0-65535 \(got "abc"\)/);
  });

  it('rejects a port above 65535 and a bad boolean and URL together', () => {
    const problems = problemsOf({ ...good, BOTLINK_PORT: '70000', OWNS_UPDATES: 'maybe', BACKEND_URL: 'nope' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['BACKEND_URL', 'BOTLINK_PORT', 'OWNS_UPDATES']);
  });

  it('reports a missing variable and never echoes a secret', () => {
    const { PLATFORM_BOT_TOKEN: _omit, ...rest } = good;
    expect(problemsOf(rest)[0]).toMatch(/^PLATFORM_BOT_TOKEN: .*\(missing\)/);
    const { BOTLINK_PORT: _p, ...noPort } = good;
    const shown = problemsOf({ ...noPort, PLATFORM_BOT_TOKEN: '' }).join('\n');
    expect(shown).toContain('BOTLINK_PORT');
    const secretSchema = z.object({ PROVIDER_SECRET_KEY: z.string().min(10, 'too short') });
    expect(() => parseConfig(secretSchema, { PROVIDER_SECRET_KEY: 'hunter2' })).toThrow(/<redacted>/);
  });

  it('never echoes a field marked secret, through optional, default and transform', () => {
    const marked = z.object({
      DB: env.secretUrl(['postgres:']).optional(),
      SHOPS: env
        .secret(z.string().transform((v, ctx) => (v.includes(':') ? v : (ctx.addIssue({ code: 'custom', message: 'bad' }), z.NEVER))))
        .optional(),
      TOKEN_VALUE: env.token().default('dev'),
    });
    const shown = (() => {
      try {
        parseConfig(marked, { DB: 'mysql://u:pw-1@h/db', SHOPS: 'pw-2', TOKEN_VALUE: 'pw 3' });
      } catch (err: unknown) {
        if (err instanceof ConfigError) return err.message;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(shown).toMatch(/DB: .*\(got <redacted>\)/);
    expect(shown).toMatch(/SHOPS: bad \(got <redacted>\)/);
    expect(shown).toMatch(/TOKEN_VALUE: must not contain spaces or control characters \(got <redacted>\)/);
    expect(shown).not.toMatch(/pw-1|pw-2|pw 3/);
  });

  it('strips user-info and query from any echoed URL, malformed or not', () => {
    const shown = problemsOf({ ...good, BACKEND_URL: 'ftp://svc:pw@backend:4000/x?token=t0k' }).join('\n');
    expect(shown).toContain('(got "ftp://…@backend:4000/x?…")');
    expect(problemsOf({ ...good, BACKEND_URL: 'http//a:b@c@host' })[0]).toContain('(got "…@host")');
  });

  it('treats an empty value as unset', () => {
    expect(parseConfig(schema, { ...good, GATEWAY_HTTP_PORT: '' }).GATEWAY_HTTP_PORT).toBe(8080);
  });
});
