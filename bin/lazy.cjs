#!/usr/bin/env node
'use strict';
// Entry point for `lazy` and `git lazy`. Start-up is a feature: the bundled CLI is
// compiled through V8's code cache, which measured ~40 ms faster per command than a
// plain load of the same bundle on a 2-core machine (see docs/benchmarks.md).
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

// `lazy --version` alone is answered before the bundle loads: it is the one command that needs none of it
// (1.1x node's own start instead of 2.5x; docs/benchmarks.md). Any other spelling goes through the parser, and so
// does this one when package.json cannot be read.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  let version;
  try {
    version = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).version;
  } catch {
    /* the bundle knows it too */
  }
  if (typeof version === 'string') {
    process.stdout.write(`${version}\n`);
    return;
  }
}

const file = path.join(__dirname, '..', 'dist', 'cli.cjs');
// Supervisors are started through this same entry point.
process.env.LAZY_CLI = process.env.LAZY_CLI || __filename;
const command = commandWord(process.argv.slice(2));
// The commands run most keep a cache of their own: one cache holding every command's functions grows past 1 MB,
// and reading and deserializing it cost show ~3 ms of CPU more than its own (docs/benchmarks.md).
const OWN_CACHE = new Set(['show', 'list', 'ls', 'comment', 'create']);
const cacheFile = `${file}.${process.version}-${process.arch}${OWN_CACHE.has(command) ? `.${command}` : ''}.cache`;

let source;
try {
  source = fs.readFileSync(file, 'utf8');
} catch {
  process.stderr.write('lazy: dist/cli.cjs is missing; run `npm run build` (or `npm ci`) first\n');
  process.exit(1);
}
// The cache file: a line naming the commands whose functions it holds, then V8's data. A cache is
// written after a command ran, with what it compiled; a command it does not name adds its own (the
// first command after an install must not decide what every later one compiles: list paid 40 ms).
let cachedData;
let cachedFor = [];
try {
  const buf = fs.readFileSync(cacheFile);
  const nl = buf.indexOf(10);
  const names = JSON.parse(buf.toString('utf8', 0, nl));
  if (!Array.isArray(names)) throw new Error('not this layout');
  [cachedFor, cachedData] = [names, buf.subarray(nl + 1)];
} catch {
  /* first run, or a cache of another layout: compile and write it below */
}
const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
const mod = new Module(file, module);
mod.filename = file;
mod.paths = Module._nodeModulePaths(path.dirname(file));
script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, path.dirname(file));

/** The command's name: the first word that is neither an option nor -C's folder (a guess costs one write). */
function commandWord(argv) {
  const word = argv.find((w, i) => !w.startsWith('-') && argv[i - 1] !== '-C');
  return word && /^[a-z_][a-z0-9_-]{0,30}$/.test(word) ? word : '';
}

function saveCache() {
  const fresh = !cachedData || script.cachedDataRejected;
  if (!fresh && (cachedFor.includes(command) || cachedFor.length >= 64)) return;
  const names = fresh ? [command] : [...cachedFor, command];
  // Written after the command ran, so functions it compiled are in the cache too.
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, Buffer.concat([Buffer.from(`${JSON.stringify(names)}\n`), script.createCachedData()]));
    fs.renameSync(tmp, cacheFile);
  } catch {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* read-only install: run without a cache */
    }
  }
}

mod.exports.main(process.argv.slice(2)).then((code) => {
  saveCache();
  process.exitCode = code;
});
