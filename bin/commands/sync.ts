import { syncCommand } from '../families.js';

export const { command, describe, builder, handler } = syncCommand('sync');
