import { now } from './clock.js';

// The page's only way to make DOM. Invariant: task text reaches the page as textContent or an attribute value,
// never as markup (no innerHTML anywhere), so a goal of `<img src=x onerror=…>` shows literally.

export type Child = Node | string | number | null | undefined | false | Child[];

/** Attributes by name; `on*` keys take listeners, `class` a class list, a boolean sets or omits the attribute. */
export type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

function append(el: Element, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) for (const c of child) append(el, c);
  else if (child instanceof Node) el.appendChild(child);
  else el.appendChild(document.createTextNode(String(child)));
}

function setAttr(el: HTMLElement, name: string, value: Attrs[string]): void {
  if (value === null || value === undefined || value === false) return;
  if (typeof value === 'function') {
    if (!name.startsWith('on')) throw new Error(`h: a listener needs an on* name, not ${name}`);
    el.addEventListener(name.slice(2), value);
  } else if (name === 'style' || name.startsWith('on')) {
    // CSP blocks inline style and handlers; a class or a listener does the job.
    throw new Error(`h: attribute ${name} is not allowed`);
  } else el.setAttribute(name, value === true ? '' : String(value));
}

/** Creates an element with attributes and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) setAttr(el, name, value);
  append(el, children);
  return el;
}

/** Replaces an element's children in one step (no paint in between, so no flicker or scroll jump). */
export function fill(el: Element, ...children: Child[]): void {
  const holder = document.createElement('div');
  append(holder, children);
  el.replaceChildren(...holder.childNodes);
}

const UNITS: [number, string][] = [
  [60, 's'],
  [60, 'min'],
  [24, 'h'],
  [30, 'd'],
  [12, 'mo'],
];

/** "3 min ago", "in 20 s", "just now": a span of time in the largest unit that fits. */
export function relative(iso: string, at = now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  let n = Math.round(Math.abs(at - t) / 1000);
  if (n < 5) return 'just now';
  let unit = 'y';
  for (const [size, name] of UNITS) {
    if (n < size) {
      unit = name;
      break;
    }
    n = Math.floor(n / size);
  }
  return at >= t ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

/** A date shown relative, its ISO time in the title; refreshTimes keeps the text current. */
export function when(iso: string | null | undefined): HTMLElement | null {
  if (!iso) return null;
  return h('time', { datetime: iso, title: iso, class: 'rel' }, relative(iso));
}

export function refreshTimes(root: ParentNode = document): void {
  for (const t of root.querySelectorAll<HTMLTimeElement>('time.rel')) t.textContent = relative(t.dateTime);
}

/** A short commit id. */
export const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 10) : '');

/** A titled section with an id tests and links can address. */
export function section(id: string, title: string, ...body: Child[]): HTMLElement {
  return h(
    'section',
    { id, class: 'panel', 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title` }, title),
    body,
  );
}

/** The muted line shown where a list has nothing. */
export const empty = (text: string) => h('p', { class: 'empty' }, text);

/** A refusal or failure, announced to assistive technology. */
export const errorBox = (message: string, code?: string) =>
  h('div', { class: 'error', role: 'alert', 'data-code': code }, message);
