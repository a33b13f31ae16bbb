/**
 * A folder of `../shared` (reference material beside the repository: traces, specifications),
 * found beside the checkout, or beside the main worktree when the checkout is a git worktree
 * elsewhere. Returns the path beside the checkout when neither exists, for the caller's error.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export function sharedFolder(name: string, root: string = process.cwd()): string {
  const beside = path.resolve(root, '..', 'shared', name);
  const dotGit = path.join(root, '.git');
  if (existsSync(beside) || !existsSync(dotGit) || statSync(dotGit).isDirectory()) return beside;
  const gitdir = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  const main = gitdir && /[\\/]\.git[\\/]worktrees[\\/]/.test(gitdir) ? path.resolve(gitdir, '..', '..', '..') : undefined;
  const besideMain = main && path.resolve(main, '..', 'shared', name);
  return besideMain && existsSync(besideMain) ? besideMain : beside;
}
