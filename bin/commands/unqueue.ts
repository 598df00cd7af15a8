import { queueCommand } from '../families.js';

export const { command, describe, builder, handler } = queueCommand('unqueue', 'Take queued tasks back from the fleet');
