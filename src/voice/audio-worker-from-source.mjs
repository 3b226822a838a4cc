// An audio thread when the engine runs from its TypeScript sources (CLI, tests): a worker does
// not inherit the tsx loader its parent registered, so it registers its own first.
const { register } = await import('tsx/esm/api');
register();
await import('./audio-worker.ts');
