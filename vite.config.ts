import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The renderer is one static bundle: loaded from disk by the desktop app, from `serve` in a browser.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2_000,
    sourcemap: false,
  },
});
