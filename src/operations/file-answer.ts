import type { Readable } from 'node:stream';
import { z } from 'zod';

/**
 * A file an operation answers (a call recording). Its own HTTP route streams it as it is, with
 * Range requests; every other transport (IPC, the operations route, the CLI) gets it as JSON
 * with the bytes in base64, the shape `FileData` documents.
 */
export class FileAnswer {
  constructor(
    readonly contentType: string,
    readonly size: number,
    /** Bytes [start, end] inclusive, or the whole file. */
    readonly read: (range?: { start: number; end: number }) => Readable,
  ) {}

  async bytes(): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const chunk of this.read()) parts.push(chunk as Buffer);
    return Buffer.concat(parts);
  }
}

export const FileData = z.object({
  content_type: z.string(),
  size: z.number().int(),
  base64: z.string().describe('The file, base64-encoded (its own GET route answers the bytes)'),
});
export type FileData = z.infer<typeof FileData>;

export async function fileData(file: FileAnswer): Promise<FileData> {
  return {
    content_type: file.contentType,
    size: file.size,
    base64: (await file.bytes()).toString('base64'),
  };
}

/** A Range header's one range within `size` bytes; null when absent, 'unsatisfiable' when outside. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'unsatisfiable';
  let start: number;
  let end: number;
  if (m[1] === '') {
    // The last N bytes.
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
