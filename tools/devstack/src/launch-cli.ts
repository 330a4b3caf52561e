import { DEV_BOT_TOKEN, DEV_VK_APP_SECRET } from './stack.js';
import { launchString, sessionRequest } from './launch.js';

const USAGE = 'usage: npm run dev:launch -- telegram|vk <user_id> [--session [gateway_url]]\n';

/**
 * `npm run dev:launch -- telegram <user_id>` (or `vk <user_id>`) prints a launch string signed for
 * the dev stack (its bot token / VK app secret, or PLATFORM_BOT_TOKEN / BACKEND_VK_APP_SECRET from
 * the environment); with `--session` it opens a session at the running gateway (default
 * http://127.0.0.1:8080) and prints the session token instead.
 */
async function main(argv: string[]): Promise<number> {
  const [platform, userId, flag, gateway = 'http://127.0.0.1:8080'] = argv;
  if ((platform !== 'telegram' && platform !== 'vk') || userId === undefined || (flag !== undefined && flag !== '--session')) {
    process.stderr.write(USAGE);
    return 2;
  }
  const launch = launchString(platform, userId, {
    telegramBotToken: process.env['PLATFORM_BOT_TOKEN'] || DEV_BOT_TOKEN,
    vkAppSecret: process.env['BACKEND_VK_APP_SECRET'] || DEV_VK_APP_SECRET,
  });
  if (flag === undefined) {
    process.stdout.write(`${launch}\n`);
    return 0;
  }
  const { path, body } = sessionRequest(platform, launch);
  const res = await fetch(new URL(path, gateway), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { token?: string };
  if (res.status !== 200 || typeof answer.token !== 'string') {
    process.stderr.write(`dev:launch: ${gateway}${path} answered ${res.status} ${JSON.stringify(answer)}\n`);
    return 1;
  }
  process.stdout.write(`${answer.token}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`dev:launch: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
