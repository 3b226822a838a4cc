import { Alert, LinearProgress } from '@mui/material';
import { useEffect, useState, type ComponentType } from 'react';

/**
 * A screen whose code loads when it is first shown, then stays loaded. Not React.lazy under a
 * Suspense boundary: React 19 holds a boundary's content back until 300 ms after its fallback
 * showed, so every first visit to a screen waited 300 ms for a chunk that loads in a few. Here the
 * progress bar shows while the chunk loads, and the screen as soon as it is there.
 */
export function lazyScreen<P extends object>(
  load: () => Promise<ComponentType<P>>,
): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  const start = () =>
    (loading ??= load().then(
      (screen) => (loaded = screen),
      (err: unknown) => {
        loading = null; // a later visit tries again
        throw err;
      },
    ));

  return function LazyScreen(props: P) {
    // Set once the code is there: the render below then reads `loaded`.
    const [, setArrived] = useState(false);
    const [failed, setFailed] = useState<string | null>(null);
    useEffect(() => {
      if (loaded) return;
      let current = true;
      start().then(
        () => current && setArrived(true),
        (err: unknown) => current && setFailed(err instanceof Error ? err.message : String(err)),
      );
      return () => {
        current = false;
      };
    }, []);
    if (loaded) {
      const Loaded = loaded;
      return <Loaded {...props} />;
    }
    if (failed)
      return (
        <Alert severity="error">
          This screen could not be loaded ({failed}). Reload the window.
        </Alert>
      );
    return <LinearProgress aria-label="Loading the screen" />;
  };
}
