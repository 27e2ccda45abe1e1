// Draws the views at most once per animation frame, only when something changed or a view is
// animating: the training loop only stores events, so drawing never stalls it.
import type { View } from './views/view.ts';

export class RenderScheduler {
  private frame = 0;

  constructor(private readonly views: readonly View[]) {}

  /** Asks for a frame (cheap; many calls before the frame give one draw). */
  request(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame((now) => {
      this.frame = 0;
      let again = false;
      for (const v of this.views) {
        try {
          if (v.render(now)) again = true;
        } catch (e) {
          console.warn('a view failed to draw', e);
        }
      }
      if (again) this.request();
    });
  }
}
