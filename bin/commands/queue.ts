import { queueCommand } from '../families.js';

export const { command, describe, builder, handler } = queueCommand(
  'queue',
  'Queue backlog or interrupted tasks for any machine running lazy work (--priority N: higher first)',
);
