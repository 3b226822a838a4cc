// `npm start`: builds what is stale, makes sure the Electron binary is there (installs skip its
// download), then launches the desktop app.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
execFileSync(process.execPath, ['scripts/build.mjs', 'all'], { stdio: 'inherit' });

const electronDir = dirname(require.resolve('electron/package.json'));
const binaryPath = () => {
  const pathFile = join(electronDir, 'path.txt');
  return existsSync(pathFile)
    ? join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim())
    : null;
};

if (!binaryPath() || !existsSync(binaryPath())) {
  console.error('Fetching the Electron binary (once)…');
  try {
    // Its own output (a stack when offline) is kept back: the line below says what to do.
    execFileSync(process.execPath, [join(electronDir, 'install.js')], {
      stdio: 'pipe',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' },
    });
  } catch {
    console.error(
      'callbench: the Electron binary could not be downloaded (offline, or its host is unreachable); the same app runs in a browser: `npm run serve`, then open the link it prints.',
    );
    process.exit(1);
  }
}

const child = spawn(binaryPath(), ['.', ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 0));
