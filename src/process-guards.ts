/**
 * A stray rejection somewhere in the engine is logged, never the end of the process: the desktop
 * app and `serve` keep serving every other request (Node's default is to exit). Uncaught
 * exceptions keep Node's behaviour: state after one is unknown. Installed once by the host.
 */
export function installProcessGuards(log: (message: string) => void): void {
  const describe = (reason: unknown) =>
    reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
  process.on('unhandledRejection', (reason) =>
    log(`An unhandled rejection was caught and the engine keeps running: ${describe(reason)}`),
  );
}
