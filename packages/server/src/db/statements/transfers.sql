-- The "transfers" statement (src/transfers/store.ts), as the code renders it and the group commit sends it.
-- Generated: npm run sql:render -w @purse/server. Checked by test/db/statements.test.ts.
-- Its parameters are arrays, one element per item of the batch.
WITH input AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::jsonb[], $11::boolean[], $12::timestamptz[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::text[]) AS i(id, merchant_id, reference, fingerprint, amount, currency, source, destination, description, metadata, livemode, at, ltx, source_entry, destination_entry, source_account, destination_account, event_id, succeeded_data, insufficient_data, inactive_data)
    ), locked AS (SELECT w.id, w.merchant_id, w.status FROM wallets w
      WHERE w.id = ANY ((SELECT array_agg(i.source) || array_agg(i.destination) FROM input i)::text[])
      ORDER BY w.id FOR UPDATE
    ), ready AS (
      SELECT i.id, count(*) FILTER (WHERE l.status = 'active') AS active
      FROM input i JOIN locked l ON l.merchant_id = i.merchant_id AND l.id IN (i.source, i.destination)
      GROUP BY i.id
    ), debit AS (UPDATE wallets SET balance = wallets.balance - i.amount, updated_at = i.at
      FROM input i JOIN ready r ON r.id = i.id AND r.active = 2
      WHERE wallets.id = i.source AND wallets.merchant_id = i.merchant_id AND wallets.status = 'active'
        AND wallets.balance >= i.amount
      RETURNING i.id, wallets.balance, nextval('ledger_entry_seq') AS seq
    ), credit AS (UPDATE wallets SET balance = wallets.balance + i.amount, updated_at = i.at
      FROM debit d JOIN input i ON i.id = d.id WHERE wallets.id = i.destination AND wallets.merchant_id = i.merchant_id
      RETURNING i.id, wallets.balance, nextval('ledger_entry_seq') AS seq
    ), outcome AS (
      SELECT i.*, d.balance AS source_balance, d.seq AS source_seq, c.balance AS destination_balance, c.seq AS destination_seq,
        CASE WHEN d.id IS NOT NULL THEN NULL WHEN r.active = 2 THEN 'insufficient_funds' ELSE 'wallet_inactive' END AS failure_code
      FROM input i LEFT JOIN ready r ON r.id = i.id LEFT JOIN debit d ON d.id = i.id
        LEFT JOIN credit c ON c.id = i.id
    ), ins AS (
      INSERT INTO transfers (id, merchant_id, reference, request_fingerprint, status, amount, currency, source_wallet_id,
        destination_wallet_id, description, metadata, failure_code, failure_message, livemode, created_at)
      SELECT o.id, o.merchant_id, o.reference, o.fingerprint, CASE WHEN o.failure_code IS NULL THEN 'succeeded' ELSE 'failed' END,
        o.amount, o.currency, o.source, o.destination, o.description, o.metadata, o.failure_code,
        CASE o.failure_code WHEN 'insufficient_funds' THEN 'The payer does not have enough funds.' WHEN 'wallet_inactive' THEN 'The wallet is frozen.' END, o.livemode, o.at
      FROM outcome o
      RETURNING id, status, failure_code
    ), ltx AS (
      INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, step, created_at)
      SELECT o.ltx, o.merchant_id, 'transfer', o.id, 'final'::text, o.at FROM outcome o WHERE o.failure_code IS NULL
    ), entries AS (
      INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at, seq)
      SELECT o.source_entry, o.ltx, o.source_account, o.currency, -(o.amount), o.source_balance, 'transfer',
             o.id, o.at, o.source_seq
      FROM outcome o WHERE o.failure_code IS NULL
      UNION ALL
      SELECT o.destination_entry, o.ltx, o.destination_account, o.currency, o.amount, o.destination_balance, 'transfer',
             o.id, o.at, o.destination_seq
      FROM outcome o WHERE o.failure_code IS NULL
    ), evs AS (
    INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
    SELECT o.event_id::text, o.merchant_id, CASE WHEN o.failure_code IS NULL THEN 'transfer.succeeded'
          ELSE 'transfer.failed' END::text, o.id, CASE coalesce(o.failure_code, '') WHEN '' THEN o.succeeded_data WHEN 'insufficient_funds' THEN o.insufficient_data
          ELSE o.inactive_data END::json, o.livemode, o.at
      FROM outcome o
    RETURNING id, type, merchant_id, object_id, created_at
    ), deliveries AS (
    INSERT INTO webhook_deliveries (id, event_id, merchant_id, endpoint_id, url, status, next_attempt_at, created_at, updated_at)
    SELECT ('del_' || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 45) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 40) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 35) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 30) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 25) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 20) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 15) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 10) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 5) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 0) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 14 + floor(random() * 2)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 8 + 16 * floor(random() * 2)::int + floor(random() * 4)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1)), ev.id, ev.merchant_id, e.id, e.url, 'pending', ev.created_at, ev.created_at, ev.created_at
    FROM evs ev JOIN webhook_endpoints e
      ON e.merchant_id = ev.merchant_id AND e.status = 'enabled' AND (cardinality(e.events) = 0 OR ev.type = ANY (e.events))
    UNION ALL
    SELECT ('del_' || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 45) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 40) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 35) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 30) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 25) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 20) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 15) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 10) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 5) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 0) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 14 + floor(random() * 2)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 8 + 16 * floor(random() * 2)::int + floor(random() * 4)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1)), ev.id, ev.merchant_id, NULL, NULL::text, 'pending', ev.created_at, ev.created_at, ev.created_at
    FROM evs ev JOIN outcome o ON o.id = ev.object_id WHERE NULL::text IS NOT NULL)
    SELECT id, status, failure_code FROM ins
