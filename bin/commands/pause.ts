import { queueCommand } from '../families.js';

export const { command, describe, builder, handler } = queueCommand(
  'pause',
  'Hold queued or interrupted tasks: no worker picks them and nothing auto-resumes them',
);
