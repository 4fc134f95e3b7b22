// Security rules applied to every web contents the app creates (vite-electron-builder's pattern):
// no navigation away from the app, no new windows, no webviews, no permissions, no remote requests.
import { app, session, type WebPreferences } from 'electron';

/** Typed so that a renamed or removed option fails the build. */
export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
    devTools: !app.isPackaged,
  };
}

export function applySecurityRules(isAppUrl: (url: string) => boolean, devServer: string | undefined): void {
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  // No remote content: only the app's own files (and the dev server while developing) load.
  session.defaultSession.webRequest.onBeforeRequest({ urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] }, (details, callback) => {
    const allowed = devServer !== undefined && details.url.startsWith(devServer.replace(/^http/, details.url.startsWith('ws') ? 'ws' : 'http'));
    callback({ cancel: !allowed });
  });
}
