import type { FastifyReply } from 'fastify';
import type { Created } from '../shared/replay.ts';

/** The 200 and 201 descriptions shared by every create route that takes a `reference`. */
export const CREATE_RESPONSES = {
  200: 'The same reference with the same request: the existing object in its current state (Idempotent-Replayed: true).',
  201: 'Created. Business failures (declined card, empty wallet) are 201 with status "failed" and a failure code.',
};

/** 201 + Location for a new object; 200 + Idempotent-Replayed for the same reference and request. */
export function sendCreated<T extends { id: string }>(reply: FastifyReply, result: Created<T>, path: string) {
  if (result.created) return reply.status(201).header('location', `/v1/${path}/${result.object.id}`).send(result.object);
  return reply.status(200).header('idempotent-replayed', 'true').send(result.object);
}
