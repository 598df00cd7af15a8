import { queueCommand } from './queue.js';

export const { command, describe, builder, handler } = queueCommand('pause');
