// Entry of the teaching page: checks WebGPU first (and explains what to enable instead of showing
// a blank page), then builds the page.
// The page's styles, in cascade order (the narrow-screen rules come after the rules they override).
import './styles/page.css';
import './styles/controls.css';
import './styles/views.css';
import './styles/lessons.css';
import './styles/narrow.css';
import './styles/tools.css';
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
