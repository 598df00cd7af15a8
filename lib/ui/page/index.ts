import { mountBoard } from './board.js';
import { fill, h } from './dom.js';
import { watchChanges } from './live.js';
import { mountTask } from './task.js';

// The page's entry: a top bar, then the view the address names (`/` the board, `/tasks/<id>` a task), re-fetched
// whenever the server reports a change. Links are real <a href>; same-page ones are taken over with pushState.

interface View {
  refresh(): Promise<void>;
  close?(): void;
}

let view: View | null = null;

function repoName(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="lazy-repo"]')?.content ?? '';
}

function topBar(): HTMLElement {
  const repo = h('span', { class: 'repo', id: 'repo-name' }, repoName());
  return h('header', { class: 'topbar' }, h('a', { class: 'brand', href: '/' }, 'lazy'), repo);
}

function taskIdOf(path: string): string | null {
  const m = /^\/tasks\/([^/]+)\/?$/.exec(path);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null; // a malformed escape names no task: the not-found page
  }
}

function route(main: HTMLElement): void {
  view?.close?.();
  const id = taskIdOf(location.pathname);
  if (id) view = mountTask(main, id);
  else if (location.pathname === '/' || location.pathname === '') {
    document.title = `${repoName()} · lazy`;
    view = mountBoard(main);
  } else {
    view = null;
    fill(main, h('h1', null, 'Not found'), h('p', null, 'No page here. ', h('a', { href: '/' }, 'Go to the board.')));
  }
}

/** A plain left click on a link to this origin: the page renders it itself. */
function intercept(e: MouseEvent, main: HTMLElement): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest?.('a[href]');
  if (!(a instanceof HTMLAnchorElement) || a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/') || url.pathname.startsWith('/assets/')) return;
  e.preventDefault();
  if (url.pathname === location.pathname && url.search === location.search) return;
  history.pushState(null, '', url.pathname + url.search);
  route(main);
  window.scrollTo(0, 0);
}

function start(): void {
  const app = document.getElementById('app') ?? document.body.appendChild(h('main', { id: 'app' }));
  const main = h('div', { class: 'view' });
  fill(app, topBar(), main);
  document.addEventListener('click', (e) => intercept(e, main));
  window.addEventListener('popstate', () => route(main));
  route(main);
  watchChanges(() => void view?.refresh());
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
