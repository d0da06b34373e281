/** The endpoint form's "events" field: comma- or space-separated types; empty means every event. */
export function parseEvents(text: string): string[] | undefined {
  const events = text.split(/[\s,]+/).filter(Boolean);
  return events.length === 0 ? undefined : events;
}
