// Entry of the teaching page: checks WebGPU first (and explains what to enable instead of showing
// a blank page), then builds the page.
import './style.css';
import { startApp } from './app.ts';
import { checkWebGpu, renderNoWebGpu } from './webgpu-check.ts';

const root = document.querySelector<HTMLElement>('#app') ?? document.body;

checkWebGpu().then(
  (r) => {
    if (r.ok) startApp(root, r.adapter, r.notes);
    else renderNoWebGpu(root, r.reason);
  },
  (e: unknown) => renderNoWebGpu(root, e instanceof Error ? e.message : String(e)),
);
