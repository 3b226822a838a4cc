/** The window's security settings and its guards against leaving the app. */

export interface Bounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

/** Options for BrowserWindow: isolated, sandboxed, no Node in the page, only our preload. */
export function windowOptions(preload: string, bounds: Bounds) {
  return {
    ...bounds,
    minWidth: 960,
    minHeight: 600,
    title: 'Callbench',
    show: false,
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: true,
    },
  };
}

/** The parts of WebContents and shell the guards use (fakes in tests). */
export interface GuardedContents {
  on(
    event: 'will-navigate' | 'will-redirect',
    listener: (event: { preventDefault(): void }, url: string) => void,
  ): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' | 'allow' }): void;
}

/** Only https links leave the app, and they open in the system browser. */
export const isExternalLink = (url: string): boolean => {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
};

/** No navigation away from the app page, no new windows, no webviews; https links go to the system browser. */
export function guardContents(
  contents: GuardedContents,
  appUrl: string,
  openExternal: (url: string) => unknown,
): void {
  const sameDocument = (url: string) => url.split('#')[0] === appUrl.split('#')[0];
  const stay = (event: { preventDefault(): void }, url: string) => {
    if (sameDocument(url)) return;
    event.preventDefault();
    if (isExternalLink(url)) void openExternal(url);
  };
  contents.on('will-navigate', stay);
  contents.on('will-redirect', stay);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalLink(url)) void openExternal(url);
    return { action: 'deny' };
  });
}
