import type { ConfigValue } from '../ops/config.js';
import type { Json } from '../core/json.js';

// Settings as text: `config list` one `key = value` line each (marked with the layer when it is not the
// shared one), `--show-origin` led by the layer and where it lives, and `config get` the bare value.

export function renderConfig(v: ConfigValue | ConfigValue[]): string {
  const list = Array.isArray(v) ? v : [v];
  if (!list.length) return 'no settings (lazy config set agent <name>, agents.<name>.command "<command line>", …)';
  return list.map(configLine).join('\n');
}

function configLine(c: ConfigValue): string {
  const value = c.value === null ? '(unset)' : JSON.stringify(c.value);
  const layer = c.origin && c.origin !== 'shared' && !c.where ? `  [${c.origin}]` : '';
  const h = c.held_back;
  const inEffect = h ? (h.in_effect === null ? 'the default' : JSON.stringify(h.in_effect)) : '';
  const mark = c.untrusted
    ? '  [untrusted: lazy config trust]'
    : h
      ? `  [held back: ${h.reason}; in effect: ${inEffect}]`
      : '';
  const line = `${c.key} = ${value}${layer}${mark}${c.shadowed ? '  [shadowed]' : ''}`;
  return c.where ? `${c.origin}:${c.where}\t${line}` : line;
}

/** `config get`: the value alone, as git config prints it (a list comma-separated, as `config set` takes it). */
export const bareValue = (v: Json | null): string =>
  v === null ? '' : Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v);
