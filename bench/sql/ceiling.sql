-- The database ceiling: Purse's wallet-payment create path as ONE pgbench transaction script.
--
-- THIS MUST MIRROR THE CREATE PATH of packages/server/src/charges/service.ts (createCharge →
-- prepareCharge's wallet lookup, then payFromWallet → src/ledger/wallet-payment.ts, one statement).
-- When that path changes, replace the statements between the markers below with the new SQL;
-- everything before them only prepares the variables.
--
-- Run by bench/run.ts as:
--   pgbench -n -M prepared -c 64 -j 2 -T <s> -f bench/sql/ceiling.sql -D merchant=<mer_…> \
--     -D wallets={wal_…,wal_…} -D nwallets=<N> -D run=<epoch seconds> -D seq=0 <database URL>
-- -M prepared: Purse names every parameterised statement (src/db/db.ts), so each connection
-- parses and plans it once; pgbench does the same.
-- Each client uses the wallet (client_id mod N) of the ceiling's own funded wallets. No colon
-- directly followed by a letter or digit, even inside literals or comments: pgbench reads it as
-- a variable (write JSON as '"k": null', not '"k":null').

\set amount 100
\set neg_amount -1 * :amount
\set w :client_id % :nwallets
\set seq :seq + 1
\set n 100000000000 + :seq * 10000 + :client_id

-- Ids, reference and timestamp, which Purse makes in JavaScript, are made here without any SQL:
-- ids are 'pay_' || run || n || suffix, 26 characters after the prefix like Purse's TypeIDs and,
-- like Purse's UUIDv7s, in creation order (run = epoch seconds, then the clients' counters).
-- The reference 'pgb-' || run || '-' || client || '-' || seq is unique by construction.
-- The timestamp is now() (the transaction's start), as Purse passes one `now` to every statement.

-- prepareCharge's wallet lookup (src/wallets/store.ts findWallet), in its own round trip as in
-- Purse; its columns become the variables w_id, w_currency, … (gset with the prefix w_).
SELECT * FROM wallets WHERE id = (:wallets::text[])[:w + 1] AND merchant_id = :merchant \gset w_

-- ===== BEGIN create path (swap from here) =====
-- src/ledger/wallet-payment.ts runWalletPayment: ONE statement (autocommit) doing the debit, the
-- charge with its final status, the balanced posting, both events and their outbox rows.
WITH w AS (
  SELECT status FROM wallets WHERE id = :w_id AND merchant_id = :merchant
), debit AS (
  UPDATE wallets SET balance = balance - :amount::bigint, updated_at = now()
  WHERE id = :w_id AND merchant_id = :merchant AND status = 'active' AND balance >= :amount::bigint
  RETURNING balance
), outcome AS (
  SELECT CASE WHEN EXISTS (SELECT 1 FROM debit) THEN NULL
              WHEN (SELECT status FROM w) = 'active' THEN 'insufficient_funds' ELSE 'wallet_inactive' END AS failure_code
), ins AS (
  INSERT INTO charges (id, kind, merchant_id, reference, request_fingerprint, status, amount, currency, method_type, method,
                       wallet_id, customer, description, metadata, callback_url, failure_code, failure_message, provider,
                       livemode, created_at, updated_at, completed_at)
  SELECT 'pay_' || :run || :n || '0001', 'payment', :merchant, 'pgb-' || :run || '-' || :client_id || '-' || :seq,
         '{"amount":"8O-FELrJEY4oWBShaxE11gQmQpyppFVL0WDGkCgrRdM","currency":"upFPF6rnKURZaSwe1KsKBrIqiOrXugwqb9R9JNuQ4AE","customer":"ih7m1u8pCYOc9Oj5SD74o0t0Uw_-BkQTD_vwl_qRgZs","metadata":"q0zPU1Gi0m28ZjpvDqB5SQ5MhPS9CO0aHBuViSG0Bvk","description":"bgn5ezHMLQQxNLGnngDjJ7SM_XIYtdX6fsybED0W_QQ","callback_url":"-q6NLhMh2OhiiSLBcBPYkyVyF5GunxKXKWowBNF3XfA","payment_method":"VoCgu2UnM0tuBS5zfC5lL6TDG-D5fQTWIPgAI5NIeqQ"}'::jsonb,
         CASE WHEN o.failure_code IS NULL THEN 'succeeded' ELSE 'failed' END, :amount::bigint, :w_currency, 'wallet',
         ('{"type":"wallet","wallet":{"wallet_id":"' || :w_id || '"}}')::jsonb, :w_id, NULL, NULL, '{}'::jsonb, NULL,
         o.failure_code, CASE o.failure_code WHEN 'insufficient_funds' THEN 'The payer does not have enough funds.' WHEN 'wallet_inactive' THEN 'The wallet is frozen.' END,
         'purse', false, now(), now(), now()
  FROM outcome o
  RETURNING id, status, failure_code
), ltx AS (
  INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, created_at)
  SELECT 'ltx_' || :run || :n || '0003', :merchant, 'payment', 'pay_' || :run || :n || '0001', now() FROM debit
), entries AS (
  INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at)
  SELECT 'wtx_' || :run || :n || '0004', 'ltx_' || :run || :n || '0003', 'wallet:' || :w_id, :w_currency, -:amount::bigint, d.balance, 'payment', 'pay_' || :run || :n || '0001', now() FROM debit d
  UNION ALL
  SELECT 'wtx_' || :run || :n || '0005', 'ltx_' || :run || :n || '0003', 'merchant:' || :merchant || ':' || :w_currency, :w_currency, :amount::bigint, NULL, 'payment', 'pay_' || :run || :n || '0001', now() FROM debit
), evs AS (
  INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
  SELECT 'evt_' || :run || :n || '0002', :merchant, 'payment.created', 'pay_' || :run || :n || '0001',
         ('{"object":{"id":"pay_' || :run || :n || '0001","object":"payment","reference":"pgb-' || :run || '-' || :client_id || '-' || :seq || '","status":"pending","amount":"1.00","currency":"KES","description": null,"metadata":{},"failure": null,"provider_reference": null,"callback_url": null,"livemode": false,"created_at":"' || now() || '","updated_at":"' || now() || '","completed_at": null,"expires_at": null,"payment_method":{"type":"wallet","wallet":{"wallet_id":"' || :w_id || '"}},"customer": null}}')::json,
         false, now() FROM ins
  UNION ALL
  SELECT 'evt_' || :run || :n || '0006', :merchant, 'payment.' || i.status, 'pay_' || :run || :n || '0001',
         ('{"object":{"id":"pay_' || :run || :n || '0001","object":"payment","reference":"pgb-' || :run || '-' || :client_id || '-' || :seq || '","status":"' || i.status || '","amount":"1.00","currency":"KES","description": null,"metadata":{},"failure": null,"provider_reference": null,"callback_url": null,"livemode": false,"created_at":"' || now() || '","updated_at":"' || now() || '","completed_at":"' || now() || '","expires_at": null,"payment_method":{"type":"wallet","wallet":{"wallet_id":"' || :w_id || '"}},"customer": null}}')::json,
         false, now() FROM ins i
  RETURNING id, type
), deliveries AS (
  INSERT INTO webhook_deliveries (id, event_id, merchant_id, endpoint_id, url, status, next_attempt_at, created_at, updated_at)
  SELECT 'del_' || replace(gen_random_uuid()::text, '-', ''), ev.id, :merchant, e.id, e.url, 'pending', now(), now(), now()
  FROM evs ev JOIN webhook_endpoints e
    ON e.merchant_id = :merchant AND e.status = 'enabled' AND (cardinality(e.events) = 0 OR ev.type = ANY (e.events))
)
SELECT status, failure_code FROM ins;
-- ===== END create path =====
