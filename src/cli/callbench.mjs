#!/usr/bin/env node
// The `callbench` command: runs the TypeScript engine through tsx, with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
