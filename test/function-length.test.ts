import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './helpers/env.js';

// No function in lib/ or bin/ is over MAX lines (issue 29): a long one becomes named steps, as accept's
// ACCEPT_STEPS are, so its body reads as the outline and the helpers hold the details. Every kind of
// function counts (declarations, expressions, arrows, methods, accessors, constructors), measured from the
// line it starts on to the line it ends on; a nested function counts in its own right and inside its outer one.

const MAX = 80;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const isFunction = (n: ts.Node): n is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(n) ||
  ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n);

/** The function's name as a reader would look for it: its own, or the variable or property it is assigned to. */
function nameOf(n: ts.FunctionLikeDeclaration): string {
  if (n.name) return n.name.getText();
  const p = n.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name)
    return p.name.getText();
  return '(anonymous)';
}

interface Long {
  at: string;
  name: string;
  lines: number;
}

/** Every function of one source file over MAX lines. */
function longFunctions(file: string): Long[] {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Long[] = [];
  const visit = (n: ts.Node) => {
    if (isFunction(n)) {
      const start = src.getLineAndCharacterOfPosition(n.getStart(src)).line;
      const end = src.getLineAndCharacterOfPosition(n.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX) found.push({ at: `${relative(ROOT, file)}:${start + 1}`, name: nameOf(n), lines });
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return found;
}

t.test(`no function in lib/ or bin/ is over ${MAX} lines`, async (t) => {
  const all = ['lib', 'bin'].flatMap((d) => files(join(ROOT, d)));
  t.ok(all.length > 50, 'the sources are found');
  const long = all.flatMap(longFunctions).sort((a, b) => b.lines - a.lines);
  t.same(
    long.map((l) => `${l.at} ${l.name}: ${l.lines} lines`),
    [],
    'each of these becomes named steps',
  );
});
