// Where a run of the page stands (session.ts moves it along; the run buttons and the texts show it).

export type RunState = 'starting' | 'running' | 'pausing' | 'paused' | 'stopping' | 'done' | 'stopped' | 'failed';
