// The engine's log, below every layer: services log through it without importing the HTTP server.
export interface Logger {
  info(msg: string): void;
  error(msg: string, err?: unknown): void;
}
