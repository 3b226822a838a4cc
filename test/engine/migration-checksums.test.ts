import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations/index.js';

/**
 * The sha256 of each shipped migration's SQLite text, as SQLite stores in the field recorded it
 * in schema_migrations. A store whose recorded checksum differs is refused, so these texts must
 * never change by a byte: a new schema change is a new migration.
 */
const SHIPPED_SQLITE: Record<number, { name: string; checksum: string }> = {
  1: {
    name: 'initial',
    checksum: '7200912d61ca48619bfa5649718673cfe448988ff7c1c29e02b878e4f9eb4cbd',
  },
  2: {
    name: 'tool call log',
    checksum: '15d8eb323ef6a77d97785d9b6e2c93347b17475c7cb4f484ad29903c6bc9e0a1',
  },
  3: {
    name: 'provider connections and call history',
    checksum: '46992e8f47a8d5830edbefb2ceabcd8169f7a6fedf01a5f797f236dd708ae14b',
  },
  4: {
    name: 'settings and alert events',
    checksum: '3c1647c1e54a3a00ea76517ec3e11c754c6fa76c57627ee1e49ea705763b77d0',
  },
  5: {
    name: 'simulation queue and results',
    checksum: 'ca1ded2de865d3e670ac05e59594f363732927c8863d08b09d407ef991a7185b',
  },
  6: {
    name: 'schedule runs',
    checksum: 'c1b776dcef16948c1a7ef8f63787574c5866eaf5a4631542e43dda50288fcab2',
  },
  7: {
    name: 'simulation leases',
    checksum: 'a52eb7ea00780a147a519148406fefb8e35df10a421fb1aedf04de4faee378d8',
  },
  8: {
    name: 'audio simulations',
    checksum: 'e13ab45ca3e6bbe2636dfe1679bdb8471ac9f6bd6a98d042bb0f1bbfa4b82a66',
  },
  9: {
    name: 'realistic callers',
    checksum: 'f921b05a49bbaa2fa202f66f59546fcb5203ca035f2d4f789dd5d71fa5749573',
  },
  10: {
    name: 'recording blobs',
    checksum: '72a59f2a374ac28ff6adbf7878a976649a00d0364026fccdf07457109407b170',
  },
  11: {
    name: 'agent workspaces',
    checksum: 'bd56e627028cc98dce5c523b6e7edcd52b108fe6f80e2c5c8e53da122ea525dd',
  },
  // Compiled from Kysely's schema builder (schema-statements.ts): a Kysely upgrade that wrote the
  // DDL differently would fail here, before any store refused it.
  12: {
    name: 'run identity',
    checksum: '5b98e3e7031571438c80bed2d363a44123caaac88d5ad05351427602f90e8211',
  },
  13: {
    name: 'comparisons',
    checksum: '7649c8a674266c95467d79b353a10ef397a467988a75e7c9e14e9fc3d2e3a06f',
  },
  14: {
    name: 'cost',
    checksum: '8b1c8f4b03ccc93dc33134c887e7e2ffb27ac0d2147e6f839dc152a463f4f965',
  },
  15: {
    name: 'variants and experiments',
    checksum: 'dccaa6a85364f6ce2a0388016a85ad95c40c924dac81337ba5281ecded0c2644',
  },
  16: {
    name: 'drift suite',
    checksum: '1b51825864e92229e96f272e0b9feac53177f61b43fc96014a90abc75140fb25',
  },
  17: {
    name: 'reply latencies',
    checksum: 'a23bff21c655bcb050c702f1f582dedb534a713595230f668556628797f84693',
  },
  18: {
    name: 'suite keys',
    checksum: '15b5c733ad47e897c6a77e06bc331893ddf5815786d8c4572bee38e3f2549b56',
  },
  19: {
    name: 'call agent version',
    checksum: '452294eb56e2c58db6b404b20261fbe465278b5d679bcbcf1f3b13c80fca0d3c',
  },
  20: {
    name: 'production monitoring',
    checksum: 'b7c38f6ef689fb36cfb4bba4b83a2e3d908037e966674c3b3bb35379e6cfbcb3',
  },
  21: {
    name: 'reviews',
    checksum: '1d20b7af42c033c88e0cecfb063e47ba0277ec634e56ee8a4d0a54568e50fb99',
  },
  22: {
    name: 'compared figures',
    checksum: 'bcd7ac3ea3937347f10c782a1fe8f440e8f96c0d36b9ac30af3f5af166079b8a',
  },
};

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('shipped migrations', () => {
  it.each(Object.entries(SHIPPED_SQLITE))(
    'version %s keeps its name and the exact SQLite text stores in the field recorded',
    (version, shipped) => {
      const m = migrations.find((x) => x.version === Number(version));
      expect(m, `migration ${version} is missing`).toBeDefined();
      expect(m!.name).toBe(shipped.name);
      expect(sha256(m!.sqlite)).toBe(shipped.checksum);
    },
  );

  it('every migration this build knows is numbered in order, without gaps', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });
});
