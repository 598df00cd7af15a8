import { abandonCommand } from '../families.js';

export const { command, describe, builder, handler } = abandonCommand(
  'close',
  'Close a task that will not be done (→ abandoned)',
);
