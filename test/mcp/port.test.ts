import t from 'tap';
import { callIo } from '../../lib/mcp/port.js';
import { recordingIo } from '../helpers/inproc.js';
import { TestClock } from '../helpers/clock.js';

// A tool call's port (lib/mcp/port.ts): its clock is the server's, and a sleep on it ends when the
// client goes away or when the caller's own signal says so, whichever comes first.

function callClock() {
  const clock = new TestClock();
  clock.pause();
  const base = recordingIo({ env: {}, cliPath: 'lazy', json: true, out: () => {}, err: () => {}, io: { clock } });
  const client = new AbortController();
  return { clock, client, io: callIo(base, 'agent', client.signal) };
}

t.test("a tool call's clock reads the server's clock", async (t) => {
  const { clock, io } = callClock();
  const before = io.clock.now();
  t.equal(before, clock.now(), 'the same time, read through the call');
  clock.advance(60_000);
  t.equal(io.clock.now(), before + 60_000, 'and moves with it');
});

t.test("a sleep ends with the caller's own signal, or with the client's going away", async (t) => {
  const { clock, client, io } = callClock();
  const own = new AbortController();
  const mine = io.clock.sleep(3_600_000, own.signal);
  own.abort(new Error('the heartbeat stopped'));
  await t.rejects(mine, /the heartbeat stopped/, "the caller's signal ends it with the caller's reason");

  const theirs = io.clock.sleep(3_600_000, new AbortController().signal);
  client.abort();
  await t.rejects(theirs, /the MCP client went away or cancelled the call/, "the client's going away ends it too");
  t.equal(clock.sleeping(), 0, 'no sleep is left behind');
});

t.test('a sleep with no signal of its own wakes when the clock passes its end', async (t) => {
  const { clock, io } = callClock();
  let woke = false;
  const s = io.clock.sleep(1_000).then(() => (woke = true));
  await new Promise((r) => setImmediate(r));
  t.notOk(woke, 'not before');
  clock.advance(1_000);
  await s;
  t.ok(woke, 'at once after the advance');
});
