// Engine features some lessons need, and whether this build has them (the compiler checks that
// every feature has an entry). Flip an entry when the feature lands in the engine; a lesson that
// needs a missing one shows its text and says its run needs that feature.
export const ENGINE_FEATURES = {
  /** Periodic rank-0 checkpoints with a barrier during a run, and exact resume (Coordinator.run's checkpoint, IndexedDB on the page). */
  checkpoints: true,
  /** torchrun-style restarts of a failed run from its last checkpoint (runtime/elastic.ts, the page's Max restarts). */
  restarts: true,
  /** fp16 mixed precision with loss scaling, in every mode (src/parallel/fp16.ts). */
  fp16: true,
  /** An export of the run as a torchrun + DDP script for a cluster (src/export, the page's Export for torchrun). */
  torchrunExport: true,
} as const satisfies Record<string, boolean>;

export type EngineFeature = keyof typeof ENGINE_FEATURES;

export const FEATURE_NAMES: Record<EngineFeature, { en: string; zh: string }> = {
  checkpoints: { en: 'periodic checkpoints during a run', zh: '运行中的定期检查点' },
  restarts: { en: 'restarts after a failure', zh: '故障后的自动重启' },
  fp16: { en: 'fp16 training in the engine', zh: '引擎中的 fp16 训练' },
  torchrunExport: { en: 'the torchrun export', zh: 'torchrun 导出' },
};

/** The features of `needs` this build lacks. */
export function missing(needs: readonly EngineFeature[] = []): EngineFeature[] {
  return needs.filter((f) => !ENGINE_FEATURES[f]);
}
