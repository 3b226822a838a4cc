/**
 * An export written into a folder the tester picks, with the File System Access API (Chromium and
 * Electron have it; elsewhere the export is a .zip download). The folder ends as the export: suite
 * files there that the export did not write (a persona deleted since) are removed, as
 * `callbench suite export --dir` does, so that importing the folder again does not bring them back.
 */
import { SUITE_DIRS, type SuiteFile } from './suiteFiles';

/** The DOM lib declares the handles but not the picker, nor a directory's listing. */
type DirectoryPicker = (options?: { mode?: 'read' | 'readwrite' }) => Promise<Listable>;
type Listable = FileSystemDirectoryHandle & { keys(): AsyncIterable<string> };

/** The picker, where the platform has one. */
export function directoryPicker(): DirectoryPicker | null {
  const picker = (window as Window & { showDirectoryPicker?: DirectoryPicker }).showDirectoryPicker;
  return typeof picker === 'function' ? picker.bind(window) : null;
}

/** The folder at `parts` below `root`, made when missing. */
async function folderAt(root: Listable, parts: string[]): Promise<Listable> {
  let dir = root;
  for (const part of parts)
    dir = (await dir.getDirectoryHandle(part, { create: true })) as Listable;
  return dir;
}

async function writeFile(root: Listable, { path, content }: SuiteFile): Promise<void> {
  const parts = path.split('/');
  const dir = await folderAt(root, parts.slice(0, -1));
  const handle = await dir.getFileHandle(parts.at(-1)!, { create: true });
  const out = await handle.createWritable();
  await out.write(content);
  await out.close();
}

/** Removes the suite files (`.yaml`, `.cases.csv`) of the kind folders that `keep` does not name. */
async function removeStale(root: Listable, keep: ReadonlySet<string>): Promise<void> {
  for (const name of SUITE_DIRS) {
    let dir: Listable;
    try {
      dir = (await root.getDirectoryHandle(name)) as Listable;
    } catch {
      continue; // No such folder there: nothing stale in it.
    }
    for await (const file of dir.keys())
      if (/\.(ya?ml|csv)$/i.test(file) && !keep.has(`${name}/${file}`)) await dir.removeEntry(file);
  }
}

/**
 * Asks for a folder and writes the files into it. Answers false when the tester closed the
 * picker without choosing (nothing written).
 */
export async function saveToFolder(
  picker: DirectoryPicker,
  files: readonly SuiteFile[],
): Promise<boolean> {
  let root: Listable;
  try {
    root = await picker({ mode: 'readwrite' });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') return false;
    throw err;
  }
  for (const file of files) await writeFile(root, file);
  await removeStale(root, new Set(files.map((f) => f.path)));
  return true;
}
