// Every English text of the teaching page, assembled from one file per part of the page (./en/).
// The Chinese table (zh.ts) has the type of this one, so the compiler refuses a key it lacks.
// Inline markup in explanation strings: `code` and **bold** (rendered by rich() in ./index.ts);
// functions take the numbers and names a sentence needs.
import { enControls } from './en/controls.ts';
import { enExplain } from './en/explain.ts';
import { enPanels } from './en/panels.ts';
import { enRingShards } from './en/ring-shards.ts';
import { enViews } from './en/views.ts';

export const en = { ...enControls, ...enViews, ...enRingShards, ...enPanels, ...enExplain };

export type Messages = typeof en;
