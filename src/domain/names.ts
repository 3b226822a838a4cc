import { z } from 'zod';

/**
 * Names that every JavaScript object inherits: as a parameter or variable name one would make the
 * values object reach its prototype, so what holds it could never be called or filled.
 */
export const RESERVED_NAMES: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/** A tool parameter's or a prompt variable's name: an identifier, none of the reserved ones. */
export const IdentifierName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a letter or _ followed by letters, digits or _')
  .refine((name) => !RESERVED_NAMES.includes(name), {
    message: `must not be ${RESERVED_NAMES.join(', ')}: those names are reserved`,
  });
