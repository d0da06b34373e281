import { Readable } from 'node:stream';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { ApiError } from '../shared/errors.ts';
import { listResponseSchema, readPageRequest } from '../shared/pagination.ts';
import { BalanceTransactionListQuery, BalanceTransactionView, readBalanceFilters } from './schemas.ts';
import type { BalanceTransactionService, Statement } from './service.ts';

/** A simple rule, documented: any Accept naming text/csv asks for the statement, whatever else it lists. */
const wantsCsv = (accept: string | undefined): boolean => accept !== undefined && /(^|[\s,])text\/csv\s*(;|,|$)/i.test(accept);

const PAGE_PARAMS = ['limit', 'starting_after', 'ending_before'] as const;

/** How long a statement download may go without the client taking the last batch. */
const STATEMENT_STALL_MS = 30_000;

/**
 * The statement as a byte stream that reads at most one batch ahead: Readable.from pulls the
 * next batch only when the socket has taken the last one (backpressure), and in byte mode (its
 * default is object mode, 16 chunks ahead). A reader that takes nothing for STATEMENT_STALL_MS
 * is cut off: on PostgreSQL an open statement holds a pool connection (its snapshot) until it
 * ends, and a stalled client must not keep it. Destroying the stream ends the generator, and
 * with it the snapshot.
 */
function stallGuarded(statement: Statement): Readable {
  const { first, rest } = statement;
  const stream: Readable = Readable.from(guarded(), { objectMode: false });
  const timer = setTimeout(
    () => stream.destroy(new Error('statement download stalled: the client took nothing for 30 s')),
    STATEMENT_STALL_MS,
  );
  timer.unref();
  // However the stream ends (finished, failed, client gone, cut off, or destroyed before its
  // first read), the statement is ended too; an async generator queues return() behind a
  // running step, and a finished one ignores it.
  stream.once('close', () => {
    clearTimeout(timer);
    rest.return(undefined).catch(() => {});
  });
  async function* guarded(): AsyncGenerator<string> {
    yield first;
    timer.refresh();
    for await (const chunk of rest) {
      yield chunk;
      timer.refresh();
    }
  }
  return stream;
}

export function registerBalanceTransactionRoutes(app: RouteApp, deps: { balanceTransactions: BalanceTransactionService }): void {
  app.addSchema(BalanceTransactionView);

  app.get(
    '/balance_transactions',
    {
      schema: {
        operationId: 'listBalanceTransactions',
        tags: ['Balance transactions'],
        summary: "Every movement of the merchant's balance, newest first; as a CSV statement with Accept: text/csv",
        description:
          "The entries of the merchant's funds (payments in; refunds and payouts out), newest first in the order they were " +
          'applied, so each balance_after is the one below it plus its amount. balance_after is the running balance of the ' +
          "currency's funds, computed before the filters: a filtered list skips lines, it never restarts the balance (the " +
          'lines it shows still chain through the ones it leaves out). With `Accept: text/csv` (any Accept naming it) the ' +
          'answer is the whole filtered range as one CSV statement (RFC 4180, CRLF, header row ' +
          '`id,created_at,source_type,source_id,currency,amount,balance_after`, newest first like the list, amounts as ' +
          'plain signed numbers), streamed with no size limit, and attached as balance_transactions.csv. It lists nothing ' +
          'newer than the newest entry when the download started. The statement is not paged: limit, starting_after or ' +
          'ending_before with text/csv is 400 parameter_invalid.',
        querystring: BalanceTransactionListQuery,
        response: {
          200: {
            description: 'The page (JSON) or the statement (CSV).',
            content: {
              'application/json': { schema: listResponseSchema('BalanceTransaction') },
              'text/csv': {
                schema: {
                  type: 'string',
                  examples: [
                    'id,created_at,source_type,source_id,currency,amount,balance_after\r\n' +
                      'len_01jd6x8v1ffq8v2k3m4n5p6q7r,2026-01-31T12:00:00.000Z,payment,pay_01jd6x8v1ffq8v2k3m4n5p6q7s,KES,1500.00,4250.00\r\n',
                  ],
                },
              },
            },
          },
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const filters = readBalanceFilters(query);
      if (!wantsCsv(request.headers.accept)) {
        return deps.balanceTransactions.listBalanceTransactions(request.auth, filters, readPageRequest(query, 'ledgerEntry'));
      }
      for (const param of PAGE_PARAMS) {
        if (query[param] !== undefined) {
          throw new ApiError(
            'parameter_invalid',
            'A CSV statement is the whole filtered range: send no limit, starting_after or ending_before.',
            {
              param,
            },
          );
        }
      }
      const statement = await deps.balanceTransactions.openStatement(request.auth, filters);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="balance_transactions.csv"')
        .send(stallGuarded(statement) as never);
    },
  );
}
