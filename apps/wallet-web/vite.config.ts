import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The wallet page is built into dist/apps/wallet-web (or WALLET_WEB_OUT_DIR) with the base path the
 * gateway serves it under: hashed assets, no inline script or style, nothing evaluated at run time,
 * so the gateway's strict CSP holds. `vite` (dev server) proxies the API to a local gateway.
 */
export default defineConfig({
  root,
  base: '/wallet/',
  build: {
    outDir: process.env['WALLET_WEB_OUT_DIR'] ?? fileURLToPath(new URL('../../dist/apps/wallet-web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  server: { proxy: { '/api': process.env['WALLET_WEB_GATEWAY'] ?? 'http://127.0.0.1:8080' } },
});
