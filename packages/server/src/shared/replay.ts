import { ApiError } from './errors.ts';
import { differingFields, type Fingerprint } from './fingerprint.ts';

/** The answer to a create call: a new object (201) or the existing one for a replay (200). */
export interface Created<T> {
  created: boolean;
  object: T;
}

/** Same reference, different request: 409 naming the fields that differ (docs/api.md §7). */
export function referenceConflict(reference: string, existingId: string, stored: Fingerprint, incoming: Fingerprint): ApiError {
  const fields = differingFields(stored, incoming);
  return new ApiError(
    'reference_conflict',
    `reference ${JSON.stringify(reference)} is already used by ${existingId} with a different request (differs in: ${fields.join(', ')}).`,
    { param: 'reference', extra: { existing_id: existingId } },
  );
}

export function sameRequest(stored: Fingerprint, incoming: Fingerprint): boolean {
  return differingFields(stored, incoming).length === 0;
}
