import type { Adapter } from './adapter.js';
import { commonClassify, tailSummary } from './adapter.js';

// Any executable: the configured command line split like a shell would (never run by
// one), with the prompt as its last argument. It talks back through $LAZY_RESULT.

export const command: Adapter = {
  argv(spec, input) {
    return [...spec.command, input.prompt];
  },
  parseLine() {
    return 'progress';
  },
  classify({ tail, exitCode, signal }) {
    return commonClassify(tail, signal ? `killed by ${signal}` : `exit ${exitCode}`);
  },
  sessionMissing() {
    return false;
  },
  resultText(_state, tail) {
    return tail.trim() ? tailSummary(tail) : undefined;
  },
};
