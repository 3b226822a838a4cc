/**
 * A JSON answer of the API or a fake under test. Its shape is exactly what the assertions check,
 * so tests read it freely; this is the one place the test code opts out of `no-explicit-any`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** A JSON object of a fake outside system (a provider's payload, a model request). */
export type JsonObject = Record<string, Json>;
