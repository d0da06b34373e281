-- The "completions" statement (src/charges/store/complete.ts), as the code renders it and the group commit sends it.
-- Generated: npm run sql:render -w @purse/server. Checked by test/db/statements.test.ts.
-- Its parameters are arrays, one element per item of the batch.
WITH input AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::smallint[]) AS i(id, status, failure_code, failure_message, provider_reference, received, cancellation_reason, three_d_secure, at, event_id, event_type, event_data, ltx, out_entry, in_entry, out_account, in_account, shard)
    ), fin AS (
      UPDATE charges SET status = i.status, failure_code = i.failure_code, failure_message = i.failure_message,
        provider_reference = coalesce(i.provider_reference, charges.provider_reference),
        amount_received = i.received, amount_capturable = NULL, next_action = NULL, pending_operation = NULL,
        cancellation_reason = i.cancellation_reason, three_d_secure = coalesce(i.three_d_secure, charges.three_d_secure),
        completed_at = i.at, updated_at = i.at, lease_until = NULL, next_check_at = NULL
      FROM input i
      WHERE charges.id = i.id AND charges.completed_at IS NULL
      RETURNING charges.*
    ), f AS (
      SELECT fin.*, i.received, i.at, i.event_id, i.event_type, i.event_data, i.ltx, i.out_entry, i.in_entry, i.out_account, i.in_account, i.shard
      FROM fin fin JOIN input i ON i.id = fin.id
    ), credit AS (UPDATE wallets SET balance = wallets.balance + f.received, updated_at = f.at
      FROM f f WHERE wallets.id = f.wallet_id AND f.kind = 'topup' AND f.status = 'succeeded'
      RETURNING f.id, wallets.balance, nextval('ledger_entry_seq') AS seq
    ), funds AS (INSERT INTO merchant_balances (merchant_id, currency, shard, credited)
      SELECT m, c, s, sum(a)::bigint
      FROM (SELECT f.merchant_id AS m, f.currency AS c, f.shard::smallint AS s, f.received AS a FROM f f WHERE f.kind = 'payment' AND f.status = 'succeeded') x
      GROUP BY m, c, s ORDER BY m, c, s
      ON CONFLICT (merchant_id, currency, shard) DO UPDATE SET credited = merchant_balances.credited + excluded.credited
    ), ltx AS (
      INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, step, created_at)
      SELECT f.ltx, f.merchant_id, f.kind, f.id, 'final'::text, f.at FROM f f LEFT JOIN credit c ON c.id = f.id WHERE f.status = 'succeeded'
    ), entries AS (
      INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at, seq)
      SELECT f.out_entry, f.ltx, f.out_account, f.currency, -(f.received), NULL, f.kind,
             f.id, f.at, nextval('ledger_entry_seq')
      FROM f f LEFT JOIN credit c ON c.id = f.id WHERE f.status = 'succeeded'
      UNION ALL
      SELECT f.in_entry, f.ltx, f.in_account, f.currency, f.received, c.balance, f.kind,
             f.id, f.at, CASE WHEN f.kind = 'topup' THEN c.seq ELSE nextval('ledger_entry_seq') END
      FROM f f LEFT JOIN credit c ON c.id = f.id WHERE f.status = 'succeeded'
    ), evs AS (
    INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
    SELECT f.event_id::text, f.merchant_id, f.event_type::text, f.id, f.event_data::json, f.livemode, f.at
      FROM f f
    RETURNING id, type, merchant_id, object_id, created_at
    ), deliveries AS (
    INSERT INTO webhook_deliveries (id, event_id, merchant_id, endpoint_id, url, status, next_attempt_at, created_at, updated_at)
    SELECT ('del_' || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 45) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 40) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 35) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 30) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 25) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 20) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 15) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 10) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 5) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 0) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 14 + floor(random() * 2)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 8 + 16 * floor(random() * 2)::int + floor(random() * 4)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1)), ev.id, ev.merchant_id, e.id, e.url, 'pending', ev.created_at, ev.created_at, ev.created_at
    FROM evs ev JOIN webhook_endpoints e
      ON e.merchant_id = ev.merchant_id AND e.status = 'enabled' AND (cardinality(e.events) = 0 OR ev.type = ANY (e.events))
    UNION ALL
    SELECT ('del_' || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 45) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 40) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 35) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 30) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 25) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 20) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 15) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 10) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 5) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 0) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 14 + floor(random() * 2)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 8 + 16 * floor(random() * 2)::int + floor(random() * 4)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1)), ev.id, ev.merchant_id, NULL, f.callback_url, 'pending', ev.created_at, ev.created_at, ev.created_at
    FROM evs ev JOIN f f ON f.id = ev.object_id WHERE f.callback_url IS NOT NULL)
    SELECT * FROM fin
