import { queueCommand } from '../families.js';

export const { command, describe, builder, handler } = queueCommand('unqueue');
