// The categories GPU memory is accounted by (gpu/memory.ts's MemoryTracker): plain values, so the
// page's memory views and the step reports name them without loading GPU code.

export const MEMORY_CATEGORIES = [
  'parameters',
  'gradients',
  'optimizer',
  'activations',
  'communication',
  'other',
] as const;
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];
