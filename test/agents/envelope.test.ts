import t from 'tap';
import { parseEnvelope } from '../../lib/agents/adapters/envelope.js';

t.test('result envelope validation', async (t) => {
  t.equal(parseEnvelope('{"status":"completed","summary":"ok"}').kind, 'ok');
  t.equal(
    parseEnvelope('{"status":"decision_required","summary":"?"}').kind,
    'malformed',
    'a decision needs its question',
  );
  t.equal(parseEnvelope('{"status":"completed","summary":"ok","extra":1}').kind, 'malformed');
  t.equal(parseEnvelope('not json').kind, 'malformed');
  t.equal(
    parseEnvelope('{"status":"completed","summary":"ok","commands":[{"command":"make","exit_code":"0"}]}').kind,
    'malformed',
  );
});
