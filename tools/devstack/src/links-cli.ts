import { walletLaunchLinks } from './launch-links.js';

/** `npm run dev:links [gateway URL]`: prints fresh wallet links for a running dev stack (the ones `npm start` printed expire after a day). */
const links = walletLaunchLinks(process.argv[2] ?? 'http://127.0.0.1:8080');
process.stdout.write(`web       ${links.web}\ntelegram  ${links.telegram}\nvk        ${links.vk}\n`);
