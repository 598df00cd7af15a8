import { abandonCommand } from '../families.js';

export const { command, describe, builder, handler } = abandonCommand('close');
