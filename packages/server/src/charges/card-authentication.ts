import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.ts';
import { isIdOf } from '../shared/ids.ts';
import type { AuthenticationUrls } from './authentication.ts';
import type { Settlement } from './settlement.ts';
import { findChargeById } from './store/read.ts';
import type { ChargeRow } from './view.ts';

/** Where the payer's browser goes next: a URL, or a page of Purse's own when there is nowhere to go. */
export type BrowserStep = { redirect: string } | { page: 'finished' | 'unknown'; status?: string };

/**
 * The payer's browser during 3-D Secure. Its arrival proves nothing: on the way back Purse reads
 * the payment's state from the acquirer (once while it still waits; a second return finds it
 * settled and changes nothing), then sends the browser to the merchant's return_url with
 * payment_id. The merchant learns the outcome from the payment or its events.
 */
export function createCardAuthentication(deps: { db: Db; settlement: Settlement; urls: AuthenticationUrls; log: FastifyBaseLogger }) {
  const { db, settlement, urls, log } = deps;

  async function load(id: string, token: string): Promise<ChargeRow | undefined> {
    if (!(isIdOf('payment', id) || isIdOf('topup', id)) || !urls.verify(id, token)) return undefined;
    const row = await findChargeById(db, id);
    return row?.method_type === 'card' ? row : undefined;
  }

  function onward(row: ChargeRow): BrowserStep {
    if (!row.return_url) return { page: 'finished', status: row.status };
    const target = new URL(row.return_url);
    target.searchParams.set(row.kind === 'topup' ? 'topup_id' : 'payment_id', row.id);
    return { redirect: target.toString() };
  }

  return {
    /** next_action's URL: to the acquirer's challenge while the payment waits for it, else onward. */
    async start(id: string, token: string): Promise<BrowserStep> {
      const row = await load(id, token);
      if (!row) return { page: 'unknown' };
      if (row.status === 'requires_action' && row.provider_action_url) return { redirect: row.provider_action_url };
      return onward(row);
    },

    /** The acquirer's return: the state is read from the acquirer, never taken from the browser. */
    async returned(id: string, token: string): Promise<BrowserStep> {
      let row = await load(id, token);
      if (!row) return { page: 'unknown' };
      if (row.status === 'requires_action') {
        try {
          const status = await settlement.providerStatus(row);
          if (status.status !== 'not_found') row = await settlement.recordProviderOutcome(row, status);
        } catch (error) {
          // The worker reads it later; the merchant's page follows the payment.
          log.warn({ err: error, charge_id: row.id }, '3-D Secure return: the acquirer could not be asked; the worker will');
        }
      }
      return onward(row);
    },
  };
}

export type CardAuthentication = ReturnType<typeof createCardAuthentication>;
