import type { ComponentChildren } from 'preact';

/**
 * A table's box: on a narrow screen the table scrolls sideways inside it, and the page does not.
 * The box is a labelled section (a region) that takes the focus, so a keyboard user can scroll it too.
 */
export function TableBox({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
    <section class="table-box" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
