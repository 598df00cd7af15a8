#!/usr/bin/env node
'use strict';
// Entry point for `lazy` and `git lazy`. Start-up is a feature: the bundled CLI is
// compiled through V8's code cache, which measured ~40 ms faster per command than a
// plain load of the same bundle on a 2-core machine (see README, Benchmarks).
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const file = path.join(__dirname, '..', 'dist', 'cli.cjs');
// Supervisors are started through this same entry point.
process.env.LAZY_CLI = process.env.LAZY_CLI || __filename;
const cacheFile = `${file}.${process.version}-${process.arch}.cache`;

let source;
try {
  source = fs.readFileSync(file, 'utf8');
} catch {
  process.stderr.write('lazy: dist/cli.cjs is missing; run `npm run build` (or `npm ci`) first\n');
  process.exit(1);
}
let cachedData;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {
  /* first run: compile and write it below */
}

const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
const mod = new Module(file, module);
mod.filename = file;
mod.paths = Module._nodeModulePaths(path.dirname(file));
script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, path.dirname(file));

function saveCache() {
  if (cachedData && !script.cachedDataRejected) return;
  // Written after the command ran, so functions it compiled are in the cache too.
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, script.createCachedData());
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
