/**
 * The social feature's one public entry: its SocialService (friends, blocks, account deletion). Only
 * app.ts registers it.
 */
export { socialService } from './service.js';
export type { BlocksTable, FriendshipsTable } from './social.table.js';
