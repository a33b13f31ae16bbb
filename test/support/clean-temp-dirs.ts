/** Setup file: the temporary folders a test file made with tempDir() go when the file is done. */
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs.js';

afterAll(removeTempDirs);
