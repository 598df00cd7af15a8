import { abandonCommand } from './close.js';

export const { command, describe, builder, handler } = abandonCommand('reject');
