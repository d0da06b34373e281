/** An event as merchants read it and webhooks send it. */
export function eventView(row: { id: string; type: string; data: unknown; livemode: boolean; created_at: Date }) {
  return {
    id: row.id,
    object: 'event' as const,
    type: row.type,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    data: row.data as { object: Record<string, unknown> },
  };
}

/** The stored `data` of an event: the object as it was at this change, rendered by its owner. */
export function eventPayload(object: unknown): string {
  return JSON.stringify({ object });
}
