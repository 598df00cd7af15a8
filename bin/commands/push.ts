import { syncCommand } from './sync.js';

export const { command, describe, builder, handler } = syncCommand('push');
