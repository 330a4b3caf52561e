import { walletLaunchLinks } from './launch-links.js';
import { DEV_BOT_TOKEN, DEV_VK_APP_SECRET } from './stack.js';

/**
 * `npm run dev:links [gateway URL]`: prints fresh wallet links for a running stack (the ones `npm
 * start` printed expire after a day), signed with PLATFORM_BOT_TOKEN and BACKEND_VK_APP_SECRET from
 * the environment when set (a compose stack's, from its .env), else with the dev stack's.
 */
const links = walletLaunchLinks(process.argv[2] ?? 'http://127.0.0.1:8080', Math.floor(Date.now() / 1000), {
  telegramBotToken: process.env['PLATFORM_BOT_TOKEN'] || DEV_BOT_TOKEN,
  vkAppSecret: process.env['BACKEND_VK_APP_SECRET'] || DEV_VK_APP_SECRET,
});
process.stdout.write(`web       ${links.web}\ntelegram  ${links.telegram}\nvk        ${links.vk}\n`);
