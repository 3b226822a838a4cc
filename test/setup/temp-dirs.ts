import { afterAll } from 'vitest';
import { removeTempDirs } from '../helpers/server.js';

// Every dir a test file made with tempDir() goes when the file ends, whatever its tests did.
afterAll(() => removeTempDirs());
