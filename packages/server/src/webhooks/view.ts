type EndpointRow = {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled' | 'deleted';
  livemode: boolean;
  created_at: Date;
  updated_at: Date;
};

/** An endpoint as merchants see it; `secret` only in the create and rotate answers. */
export function endpointView(row: EndpointRow, secret?: string) {
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    events: row.events.length === 0 ? ['*'] : row.events,
    description: row.description,
    status: row.status,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ...(secret === undefined ? {} : { secret }),
  };
}

export function deliveryView(
  row: {
    id: string;
    event_id: string;
    endpoint_id: string | null;
    url: string;
    status: string;
    attempts: number;
    next_attempt_at: Date | null;
    last_status_code: number | null;
    last_error: string | null;
    created_at: Date;
    delivered_at: Date | null;
  },
  attempts: { attempted_at: Date; status_code: number | null; latency_ms: number; error: string | null; response_excerpt: string | null }[],
) {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    event_id: row.event_id,
    webhook_endpoint_id: row.endpoint_id,
    url: row.url,
    status: row.status,
    attempt_count: row.attempts,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at.toISOString(),
    delivered_at: row.delivered_at?.toISOString() ?? null,
    attempts: attempts.map((a) => ({
      attempted_at: a.attempted_at.toISOString(),
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
      response_excerpt: a.response_excerpt,
    })),
  };
}
