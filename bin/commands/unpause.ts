import { queueCommand } from '../families.js';

export const { command, describe, builder, handler } = queueCommand(
  'unpause',
  'Release paused tasks (a crash this machine would have resumed is resumed)',
);
