const PAGE = 1_000;

/** Every item of a paged store list, in its order: a suite covers a whole workspace. */
export async function everyPage<T>(
  page: (limit: number, offset: number) => Promise<{ items: T[]; total: number }>,
): Promise<T[]> {
  const out: T[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const { items, total } = await page(PAGE, offset);
    out.push(...items);
    if (!items.length || out.length >= total) return out;
  }
}
