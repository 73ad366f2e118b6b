import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { TextFiles } from '../model/definitions';

/** TextFiles on the local disk, for the command line and unit tests. */
export const nodeTextFiles: TextFiles = {
  async readText(file) {
    try {
      return await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  },
  async listYaml(dir) {
    try {
      const names = await fs.readdir(dir);
      return names.filter((n) => /\.ya?ml$/.test(n)).sort().map((n) => path.join(dir, n));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  },
};
