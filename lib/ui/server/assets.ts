import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unexpected } from '../../core/errors.js';

// The page: one HTML shell (no inline script or style: the CSP forbids both) and the two files esbuild built from
// lib/ui/page/ (scripts/build.mjs), read once at start and served from memory. Nothing comes from a CDN.

export interface Assets {
  'app.js': Buffer;
  'app.css': Buffer;
}

export const ASSET_TYPES: Record<keyof Assets, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

export function loadAssets(dir: string): Assets {
  try {
    return { 'app.js': readFileSync(join(dir, 'app.js')), 'app.css': readFileSync(join(dir, 'app.css')) };
  } catch (e) {
    throw unexpected(`lazy ui: the page is not built in ${dir} (npm run build makes it): ${(e as Error).message}`);
  }
}

const attribute = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The shell every page path answers with. The token (base64url, nothing to escape) is what the page's changes
 * carry; the repository's name is a folder's, escaped; `now` is the serving command's time. The icon is empty, so the browser asks for no /favicon.ico.
 */
export const shell = (token: string, repo: string, now: number) =>
  [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="lazy-token" content="${token}">`,
    `<meta name="lazy-repo" content="${attribute(repo)}">`,
    // The page's time until its event stream tells it again: the serving command's clock (the port's), not the browser's.
    `<meta name="lazy-now" content="${now}">`,
    `<title>${attribute(repo)} · lazy</title>`,
    '<link rel="icon" href="data:,">',
    '<link rel="stylesheet" href="/assets/app.css">',
    '<script src="/assets/app.js" defer></script>',
    '</head>',
    '<body><main id="app"></main></body>',
    '</html>',
    '',
  ].join('\n');
