import { defineConfig } from 'vite';

// Served by Purse under /dashboard (packages/server/src/dashboard/routes.ts); every file is the page's
// own (no CDN), and nothing is inlined into index.html, so the CSP can stay at script-src 'self'.
export default defineConfig({
  base: '/dashboard/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
