// A history router small enough to read: the dashboard's pages are a handful of fixed paths under
// /dashboard/, so a library would add weight without adding anything the page uses.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';

const listeners = new Set<() => void>();

/** The path after /dashboard, without slashes at either end ("" for the overview). */
function currentPath(): string {
  return location.pathname.slice(BASE.length).replace(/^\/+|\/+$/g, '');
}

export function navigate(path: string): void {
  history.pushState(null, '', `${BASE}/${path}`);
  for (const listener of listeners) listener();
  // A new page starts at its top, and a keyboard or screen-reader user lands on its heading.
  window.scrollTo(0, 0);
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

/** The current path's segments, re-rendering on navigation and on the browser's back and forward. */
export function usePath(): string[] {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path === '' ? [] : path.split('/').map(decodeURIComponent);
}

type LinkProps = { to: string; children: ComponentChildren; onClick?: () => void } & Omit<
  JSX.HTMLAttributes<HTMLAnchorElement>,
  'href' | 'onClick'
>;

/** A real link (open in a new tab works), followed in the page when clicked plainly; `onClick` runs first. */
export function Link({ to, children, onClick, ...rest }: LinkProps) {
  const follow = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onClick?.();
    navigate(to);
  };
  return (
    <a href={`${BASE}/${to}`} {...rest} onClick={follow}>
      {children}
    </a>
  );
}
