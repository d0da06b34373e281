-- The "outflows" statement (src/outflows/store/create.ts), as the code renders it and the group commit sends it.
-- Generated: npm run sql:render -w @purse/server. Checked by test/db/statements.test.ts.
-- Its parameters are arrays, one element per item of the batch.
WITH RECURSIVE input AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::bigint[], $8::text[], $9::text[], $10::text[], $11::text[], $12::jsonb[], $13::text[], $14::text[], $15::jsonb[], $16::text[], $17::text[], $18::text[], $19::text[], $20::boolean[], $21::timestamptz[], $22::timestamptz[], $23::timestamptz[], $24::text[], $25::text[], $26::text[], $27::text[], $28::text[], $29::text[], $30::text[], $31::text[], $32::text[], $33::text[], $34::text[], $35::text[], $36::text[], $37::text[], $38::text[], $39::text[], $40::text[], $41::text[], $42::text[], $43::text[], $44::text[], $45::text[], $46::text[], $47::jsonb[]) WITH ORDINALITY AS i(id, kind, merchant_id, reference, fingerprint, status, amount, currency, payment_id, reason, destination_type, destination, wallet_id, description, metadata, callback_url, refuse, refuse_message, provider, livemode, at, completed_at, lease, ltx, out_entry, in_entry, merchant_account, in_account, created_event, final_event, created_type, succeeded_type, failed_type, created_data, ok_data, insufficient_data, inactive_data, refuse_data, audit_id, audit_action, actor_type, actor_id, actor_email, ip_address, user_agent, request_id, audit_changes, ord)
    ), pay AS (SELECT c.id, c.merchant_id, c.status, coalesce(c.amount_received, c.amount) AS amount, c.amount_refunded FROM charges c
      WHERE c.id = ANY ((SELECT array_agg(i.payment_id) FROM input i)::text[]) AND c.kind = 'payment'
      ORDER BY c.id FOR UPDATE
    ), dest AS (SELECT w.id, w.merchant_id, w.status FROM wallets w
      WHERE w.id = ANY ((SELECT array_agg(i.wallet_id) FROM input i)::text[]) AND (SELECT count(*) FROM pay) >= 0
      ORDER BY w.id FOR UPDATE
    ), funds AS (SELECT b.merchant_id, b.currency, b.debited, (SELECT coalesce(sum(a.credited), 0) FROM merchant_balances a
        WHERE a.merchant_id = b.merchant_id AND a.currency = b.currency) AS credited
      FROM merchant_balances b
      WHERE b.merchant_id = ANY ((SELECT array_agg(DISTINCT i.merchant_id) FROM input i)::text[]) AND b.currency = ANY ((SELECT array_agg(DISTINCT i.currency) FROM input i)::text[]) AND b.shard = 0
        AND (SELECT count(*) FROM dest) >= 0
      ORDER BY b.merchant_id, b.currency FOR UPDATE
    ), checked AS (
      SELECT i.*, f.credited - f.debited AS available,
        CASE WHEN i.kind = 'refund' AND p.status IS DISTINCT FROM 'succeeded' THEN 'payment_not_refundable'
             WHEN i.kind = 'refund' AND p.amount - p.amount_refunded < i.amount THEN 'amount_too_large'
             WHEN f.merchant_id IS NULL THEN 'no_funds_row'
             WHEN i.refuse IS NOT NULL THEN i.refuse END AS refused,
        CASE WHEN i.wallet_id IS NULL THEN 'active' ELSE d.status END AS dest_status
      FROM input i
      LEFT JOIN pay p ON p.id = i.payment_id AND p.merchant_id = i.merchant_id
      LEFT JOIN funds f ON f.merchant_id = i.merchant_id AND f.currency = i.currency
      LEFT JOIN dest d ON d.id = i.wallet_id AND d.merchant_id = i.merchant_id
    ), reaching AS (
      SELECT merchant_id, currency, count(*) AS n, sum(amount) AS total FROM checked WHERE refused IS NULL GROUP BY merchant_id, currency
    ), outcome AS (
      SELECT c.*,
        CASE WHEN c.refused IS NOT NULL THEN c.refused
             WHEN r.n > 1 AND r.total > c.available THEN purse_abort('merged outflows are more than the funds: each runs alone')
             WHEN c.available < c.amount THEN 'insufficient_funds'
             WHEN c.dest_status IS DISTINCT FROM 'active' THEN 'wallet_inactive' END AS failure
      FROM checked c LEFT JOIN reaching r ON r.merchant_id = c.merchant_id AND r.currency = c.currency
    ), refunded AS (UPDATE charges SET amount_refunded = charges.amount_refunded + o.amount, updated_at = o.at
      FROM outcome o WHERE charges.id = o.payment_id AND o.failure IS NULL AND o.kind = 'refund' RETURNING charges.id
    ), hold AS (UPDATE merchant_balances SET debited = merchant_balances.debited + g.amount, reserved = merchant_balances.reserved + g.held
      FROM (SELECT m, c, sum(a)::bigint AS amount, sum(h)::bigint AS held
        FROM (SELECT o.merchant_id AS m, o.currency AS c, o.amount AS a, CASE WHEN o.status = 'pending' THEN o.amount ELSE 0 END AS h FROM outcome o WHERE o.failure IS NULL) x
        GROUP BY m, c) g
      WHERE merchant_balances.merchant_id = g.m AND merchant_balances.currency = g.c AND merchant_balances.shard = 0
      RETURNING merchant_balances.debited
    ), credited_wallets AS (
      UPDATE wallets SET balance = wallets.balance + g.total, updated_at = g.t
      FROM (SELECT w, sum(a)::bigint AS total, count(*)::int AS n, max(t) AS t FROM (SELECT o.id AS item, o.wallet_id AS w, o.amount AS a, o.ord AS o, o.at AS t FROM outcome o WHERE o.failure IS NULL AND o.wallet_id IS NOT NULL) x GROUP BY w) g
      WHERE wallets.id = g.w
      RETURNING wallets.id, wallets.balance,
        (SELECT array_agg(s ORDER BY s) FROM (SELECT nextval('ledger_entry_seq') AS s FROM generate_series(1, g.n)) q) AS seqs
    ), credit AS (
      SELECT x.item, cw.balance - coalesce(sum(x.a) OVER (PARTITION BY x.w ORDER BY x.o ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), 0) AS balance,
        cw.seqs[(row_number() OVER (PARTITION BY x.w ORDER BY x.o))::int] AS seq
      FROM (SELECT o.id AS item, o.wallet_id AS w, o.amount AS a, o.ord AS o, o.at AS t FROM outcome o WHERE o.failure IS NULL AND o.wallet_id IS NOT NULL) x JOIN credited_wallets cw ON cw.id = x.w
    ), ins AS (
      INSERT INTO outflows ("id", "kind", "merchant_id", "reference", "request_fingerprint", "status", "amount", "currency", "payment_id", "reason", "destination_type", "destination", "wallet_id", "description", "metadata", "callback_url", "failure_code", "failure_message", "provider", "livemode", "created_at", "updated_at", "completed_at", "next_check_at", "lease_until")
      SELECT o.id, o.kind, o.merchant_id, o.reference, o.fingerprint, CASE WHEN o.failure IS NULL THEN o.status ELSE 'failed' END, o.amount, o.currency, o.payment_id, o.reason, o.destination_type, o.destination, o.wallet_id, o.description, o.metadata, o.callback_url, o.failure, coalesce(CASE o.failure WHEN 'insufficient_funds' THEN 'The payer does not have enough funds.' WHEN 'wallet_inactive' THEN 'The wallet is frozen.' END, o.refuse_message), o.provider, o.livemode, o.at, o.at, CASE WHEN o.failure IS NULL THEN o.completed_at ELSE o.at END, CASE WHEN o.failure IS NULL THEN o.lease ELSE NULL END, CASE WHEN o.failure IS NULL THEN o.lease ELSE NULL END FROM outcome o WHERE o.failure IS NULL OR o.failure IN ('insufficient_funds', 'wallet_inactive') OR o.failure = o.refuse
      RETURNING id, status, failure_code
    ), ltx AS (
      INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, step, created_at)
      SELECT o.ltx, o.merchant_id, o.kind, o.id, CASE WHEN o.wallet_id IS NULL THEN 'hold' ELSE 'final' END::text, o.at FROM outcome o LEFT JOIN credit c ON c.item = o.id WHERE o.failure IS NULL
    ), entries AS (
      INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at, seq)
      SELECT o.out_entry, o.ltx, o.merchant_account, o.currency, -(o.amount), NULL, o.kind,
             o.id, o.at, nextval('ledger_entry_seq')
      FROM outcome o LEFT JOIN credit c ON c.item = o.id WHERE o.failure IS NULL
      UNION ALL
      SELECT o.in_entry, o.ltx, o.in_account, o.currency, o.amount, c.balance, o.kind,
             o.id, o.at, CASE WHEN o.wallet_id IS NULL THEN nextval('ledger_entry_seq') ELSE c.seq END
      FROM outcome o LEFT JOIN credit c ON c.item = o.id WHERE o.failure IS NULL
    ), evs_created AS (
    INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
    SELECT o.created_event::text, o.merchant_id, o.created_type::text, o.id, o.created_data::json, o.livemode, o.at
      FROM ins ins JOIN outcome o ON o.id = ins.id
    RETURNING id, type, merchant_id, object_id, created_at
    ), evs_final AS (
    INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
    SELECT o.final_event::text, o.merchant_id, CASE ins.status WHEN 'succeeded' THEN o.succeeded_type ELSE o.failed_type END::text, o.id, CASE coalesce(ins.failure_code, '') WHEN '' THEN o.ok_data WHEN 'insufficient_funds' THEN o.insufficient_data
        WHEN 'wallet_inactive' THEN o.inactive_data ELSE o.refuse_data END::json, o.livemode, o.at
      FROM ins ins JOIN outcome o ON o.id = ins.id WHERE ins.status <> 'pending'
    RETURNING id, type, merchant_id, object_id, created_at
    ), deliveries AS (
    INSERT INTO webhook_deliveries (id, event_id, merchant_id, endpoint_id, url, status, next_attempt_at, created_at, updated_at)
    SELECT ('del_' || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 45) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 40) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 35) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 30) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 25) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 20) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 15) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 10) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 5) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 0) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 14 + floor(random() * 2)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 8 + 16 * floor(random() * 2)::int + floor(random() * 4)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1)), ev.id, ev.merchant_id, e.id, e.url, 'pending', ev.created_at, ev.created_at, ev.created_at
    FROM (SELECT * FROM evs_created UNION ALL SELECT * FROM evs_final) ev JOIN webhook_endpoints e
      ON e.merchant_id = ev.merchant_id AND e.status = 'enabled' AND (cardinality(e.events) = 0 OR ev.type = ANY (e.events))
    UNION ALL
    SELECT ('del_' || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 45) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 40) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 35) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 30) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 25) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 20) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 15) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 10) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 5) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', ((floor(extract(epoch FROM ev.created_at) * 1000)::bigint >> 0) & 31)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 14 + floor(random() * 2)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', 8 + 16 * floor(random() * 2)::int + floor(random() * 4)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1) || substr('0123456789abcdefghjkmnpqrstvwxyz', floor(random() * 32)::int + 1, 1)), ev.id, ev.merchant_id, NULL, o.callback_url, 'pending', ev.created_at, ev.created_at, ev.created_at
    FROM (SELECT * FROM evs_created UNION ALL SELECT * FROM evs_final) ev JOIN outcome o ON o.id = ev.object_id WHERE o.callback_url IS NOT NULL), audit_items AS (
      SELECT f.*, row_number() OVER (PARTITION BY f.merchant_id ORDER BY f.ord) AS rn FROM (SELECT o.audit_id AS id, o.merchant_id, o.audit_action AS action, o.actor_type, o.actor_id, o.actor_email,
      o.kind AS target_type, o.id AS target_id, o.ip_address, o.user_agent, o.request_id, o.audit_changes AS changes,
      o.at AS created_at, o.ord FROM ins ins JOIN outcome o ON o.id = ins.id) f
    ), audit_locked AS (
      SELECT h.merchant_id, h.seq, h.hash FROM audit_heads h
      WHERE h.merchant_id IN (SELECT merchant_id FROM audit_items) AND (SELECT count(*) FROM ins) >= 0
      ORDER BY h.merchant_id FOR UPDATE
    ), audit_chain (merchant_id, rn, seq, hash, prev_hash) AS (
      SELECT merchant_id, 0::bigint, seq, hash, NULL::text FROM audit_locked
      UNION ALL
      SELECT c.merchant_id, c.rn + 1, c.seq + 1, encode(sha256(convert_to(c.hash || '|' || json_build_array(i.id, i.merchant_id, c.seq + 1, i.action, i.actor_type, i.actor_id,
      i.actor_email, i.target_type, i.target_id, i.ip_address, i.user_agent, i.request_id,
      i.changes, (extract(epoch FROM i.created_at) * 1000000)::bigint)::text, 'UTF8')), 'hex'), c.hash
      FROM audit_chain c JOIN audit_items i ON i.merchant_id = c.merchant_id AND i.rn = c.rn + 1
    ), audit_written AS (
      INSERT INTO audit_events ("id", "merchant_id", "action", "actor_type", "actor_id", "actor_email", "target_type", "target_id", "ip_address", "user_agent", "request_id", "changes", "created_at", seq, prev_hash, hash)
      SELECT "i"."id", "i"."merchant_id", "i"."action", "i"."actor_type", "i"."actor_id", "i"."actor_email", "i"."target_type", "i"."target_id", "i"."ip_address", "i"."user_agent", "i"."request_id", "i"."changes", "i"."created_at", c.seq, c.prev_hash, c.hash
      FROM audit_chain c JOIN audit_items i ON i.merchant_id = c.merchant_id AND i.rn = c.rn
      RETURNING id
    ), audit_moved AS (
      UPDATE audit_heads h SET seq = l.seq, hash = l.hash
      FROM (SELECT DISTINCT ON (merchant_id) merchant_id, seq, hash FROM audit_chain WHERE rn > 0 ORDER BY merchant_id, rn DESC) l
      WHERE h.merchant_id = l.merchant_id
      RETURNING h.merchant_id
    )
    SELECT id, failure AS decision FROM outcome
