const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** The instant in the browser's zone and locale. */
export function formatLocal(iso: string): string {
  return local.format(new Date(iso));
}

/** The same instant in UTC, for the hover title ("2026-11-25 21:04:05.123 UTC"). */
export function formatUtc(iso: string): string {
  return `${new Date(iso).toISOString().replace('T', ' ').replace('Z', '')} UTC`;
}

/** A date input's value (YYYY-MM-DD, the browser's zone) → the first or last millisecond of that day, as RFC 3339 UTC. */
export function dayBoundary(day: string, end: boolean): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const instant = end ? new Date(year, month - 1, date, 23, 59, 59, 999) : new Date(year, month - 1, date);
  return instant.toISOString();
}

/** Today in the browser's zone as a date input's value. */
export function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
