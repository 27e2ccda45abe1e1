// Vite serves and builds the teaching page. COOP/COEP make the page cross-origin isolated, so
// workers may exchange gradient chunks through SharedArrayBuffer (see src/dist/transport-*.ts).
import { defineConfig } from 'vite';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  server: { headers: isolation, host: 'localhost' },
  preview: { headers: isolation, host: 'localhost' },
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 1024 },
});
