import t from 'tap';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './helpers/env.js';

// The details a status change or a turn records are read through lib/model/details.ts only: no
// layer above lib/model/ reads a `details` property of an entry (StatusEntry, TurnEntry) or of its
// view (ChangeView, TurnView). The type checker says which `details` a read names, so a LazyError's
// details (lib/core/errors.ts) or a sync report's are not counted.

const LIB = join(ROOT, 'lib');
/** Where the entry and view types that hold a task's details are declared. */
const HOLDERS = ['lib/model/docs.ts', 'lib/model/views.ts'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every read of a task's details in lib/: file:line and the expression. */
function detailsReads(): string[] {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram(files(LIB), { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  const isTaskDetails = (sym: ts.Symbol | undefined) =>
    !!sym?.declarations?.some((d) => HOLDERS.includes(relative(ROOT, d.getSourceFile().fileName)));
  const out: string[] = [];
  for (const sf of program.getSourceFiles()) {
    const file = relative(ROOT, sf.fileName);
    if (!file.startsWith('lib/')) continue;
    const visit = (node: ts.Node): void => {
      let sym: ts.Symbol | undefined;
      if (ts.isPropertyAccessExpression(node) && node.name.text === 'details')
        sym = checker.getSymbolAtLocation(node.name);
      else if (
        ts.isElementAccessExpression(node) &&
        ts.isStringLiteral(node.argumentExpression) &&
        node.argumentExpression.text === 'details'
      )
        sym = checker.getSymbolAtLocation(node.argumentExpression);
      else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const name = node.propertyName ?? node.name;
        if (ts.isIdentifier(name) && name.text === 'details')
          sym = checker.getTypeAtLocation(node.parent).getProperty('details');
      }
      if (isTaskDetails(sym)) {
        const { line } = sf.getLineAndCharacterOfPosition(node.getStart());
        out.push(`${file}:${line + 1}: ${node.getText().slice(0, 80)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

t.test('no layer above lib/model/ reads a task entry’s details', async (t) => {
  const reads = detailsReads();
  t.ok(
    reads.some((r) => r.startsWith('lib/model/fold.ts:')),
    'the scan sees the reads lib/model/fold.ts makes (it is not blind)',
  );
  t.same(
    reads.filter((r) => !r.startsWith('lib/model/')),
    [],
    'read them through the accessors of lib/model/details.ts (add one there for a new fact)',
  );
});
