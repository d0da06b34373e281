/** How the command is run: from the repository root, through the root package's script. */
export const PURSE = 'npm run purse --';

export const USAGE = `Usage: ${PURSE} <command> [options]     (from the repository root; npm run -s purse -- … when
       you pipe or redirect the output, so npm prints nothing of its own; or node packages/server/bin/purse.mjs …)

Commands:
  migrate                                   Apply pending database migrations.
  merchant create --name NAME [--live] [--json]
                                            Create a merchant (sandbox unless --live) and print
                                            its client_id and client_secret; the secret is shown only now.
  merchant list [--json]                    List merchants (never their secrets).
  merchant rotate-secret ID [--json]        Replace a merchant's client_secret and print the new one once;
                                            the old secret and every token issued with it stop working.
  merchant disable ID [--json]              Disable a merchant: its tokens and credentials stop working.
  merchant enable ID [--json]               Enable a disabled merchant again.
  merchant update ID --raw-card-data | --no-raw-card-data [--json]
                                            Allow (or stop) a live merchant posting card numbers.
  merchant webhook-secret ID [--json]       Print the merchant's default webhook signing secret (whsec_…),
                                            which signs deliveries to a payment's or top-up's callback_url.
  merchant rotate-webhook-secret ID [--json]
                                            Replace it; the old one keeps signing alongside for 24 h.
  user invite --merchant ID --email EMAIL --role owner|admin|developer|support|viewer [--base-url URL] [--json]
                                            Invite a dashboard user (the first owner, typically) and print its
                                            one-time invitation link, valid 72 h (base: --base-url, else
                                            PURSE_PUBLIC_URL, else http://127.0.0.1:PORT).
  audit verify [--merchant ID] [--json]     Recompute each merchant's audit-log hash chain (or one merchant's) and
                                            name the first broken link; exit 1 if any chain is broken.
  rekey                                     After a service-key change (PURSE_SECRET_KEY new, PURSE_SECRET_KEY_PREVIOUS
                                            old): re-encrypt every webhook secret with the new key.
  key export-legacy                         Print the service key an older Purse generated into the database
                                            (to set it as PURSE_SECRET_KEY once; the server then deletes it).
  listen --forward-to URL [--base-url URL] [--client-id ID --client-secret SECRET] [--secret whsec_…]
                                            For merchants, on their own machine: sign in with client credentials
                                            (or PURSE_CLIENT_ID / PURSE_CLIENT_SECRET), follow the events API and
                                            POST each new event to URL, signed (Standard Webhooks) with a secret
                                            printed at start and kept in DATA_DIR/listen-secret.json (mode 0600),
                                            the same on every run; --secret overrides it. Nothing to register;
                                            uses the HTTP API only (--base-url, PURSE_BASE_URL, default
                                            http://127.0.0.1:8080), never the database.
  reconcile --provider mtn|mpesa [--since 24h|7d|ISO-TIME] [--json]
                                            Ask the provider about every payment, top-up, refund and payout
                                            since --since (default 7d) and every one still pending: apply
                                            final answers for what is pending here, and print each mismatch
                                            (settled there but failed here, failed there but succeeded here,
                                            unknown there, still open there, amounts that differ).
  help                                      Show this help.

Configuration comes from the same environment as the server:
  DATABASE_URL       PostgreSQL; the commands work while servers run.
  DATA_DIR           Without DATABASE_URL: the embedded database folder (default ./.data). Only one
                     process may open it: every command but listen refuses at once while a server
                     holds it, so stop the server first.
  PURSE_SECRET_KEY   Must match the server's, or the secrets printed here will not be accepted (or
                     PURSE_SECRET_KEY_FILE; required with DATABASE_URL). Without it on the embedded
                     database, the key file DATA_DIR/purse-secret.key the server made is used.
  PURSE_SECRET_KEY_PREVIOUS  The old key during a rotation (or PURSE_SECRET_KEY_PREVIOUS_FILE).
`;
