// Generated from the Purse OpenAPI document by `npm run sdk:types`. Do not edit.
export interface paths {
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange client credentials for an access token
         * @description OAuth 2.0 client-credentials grant (RFC 6749 §4.4), in three forms:
         *
         *     - a JSON body (`Content-Type: application/json`): `{"grant_type":"client_credentials","client_id":"cli_…","client_secret":"sk_…"}`;
         *     - the same fields form-encoded (`Content-Type: application/x-www-form-urlencoded`): `grant_type=client_credentials&client_id=cli_…&client_secret=sk_…`;
         *     - HTTP Basic client authentication (`Authorization: Basic base64(client_id:client_secret)`, each part form-encoded first) with only `grant_type` in the body (JSON or form).
         *
         *     Credentials in both the body and the header are refused (400 invalid_request). Several tokens of one client are valid at once. Repeated failures for one client are throttled with 429 and Retry-After.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where to start: links to the documentation, the dashboard and this document
         * @description An HTML page for a browser (Accept: text/html), else JSON.
         */
        get: operations["getRoot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: a writable primary answers
         * @description Ready when the database answers and takes writes (not a standby, not read-only: during a failover, 503 until the new primary answers). `database` names the node that answered and how many synchronous standbys it has. With PURSE_REDIS_URL, an unreachable Redis does not make the service unready: limits are then counted per process, and `limits` says so.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (text exposition format) */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI 3.1 document */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in to the dashboard with email and password
         * @description Sets the HttpOnly, SameSite=Strict session cookie `purse_session` (Path=/dashboard; Secure over HTTPS) with a new value, and answers the session's CSRF token. A wrong email, a wrong password, a removed user and one that has not accepted its invitation all answer the same 401 sign_in_failed, in the same time. After 5 failures for one email from one address within 15 minutes (fixed windows), 429 rate_limited with Retry-After; the per-address limit of failed requests (PURSE_ADDRESS_FAILURE_LIMIT per minute) applies too. Failures from other addresses never block an account. Live and sandbox merchants' users sign in alike. Cross-site requests are refused (403 csrf_token_invalid).
         */
        post: operations["dashboardSignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/sign-in/second-factor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete sign-in with a TOTP code or a recovery code
         * @description A code whose 30-second step was already used by this user (or an older one) is refused; a recovery code works once. The session gets a new cookie value and CSRF token, and lives PURSE_SESSION_ABSOLUTE_S from now. Failures are throttled like sign-in. After 5 failures for one email from one address within 15 minutes (fixed windows), 429 rate_limited with Retry-After; the per-address limit of failed requests (PURSE_ADDRESS_FAILURE_LIMIT per minute) applies too. Failures from other addresses never block an account.
         */
        post: operations["dashboardSecondFactor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation: set the password and activate the user
         * @description The token is the part of the invitation link after `#`. It works once, for 72 hours; then sign in (owners and admins enrol TOTP next).
         */
        post: operations["dashboardAcceptInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The current session: its state, CSRF token, user, merchant and ends
         * @description Sessions end after PURSE_SESSION_IDLE_S (default 1800) without a request and PURSE_SESSION_ABSOLUTE_S (default 43200) after sign-in; a session waiting for its second factor or TOTP enrolment lives at most 600 s. Activity is written at most once a minute.
         */
        get: operations["dashboardSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/session/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An access token bound to the session, for /v1
         * @description Use it as a Bearer token on /v1. Its rights are the user’s role’s, judged at each use (cached at most 2 s): a role change, the user’s removal, sign-out, expiry or a password change stop it within 5 s. It lives min(600 s, the session’s remaining absolute life); each use counts as activity of the session.
         */
        post: operations["dashboardSessionToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/sign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign out: the session and its tokens end, the cookie is cleared */
        post: operations["dashboardSignOut"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/totp/enrol": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start TOTP enrolment: a new secret, as base32 text and an otpauth:// URI
         * @description RFC 6238: SHA-1, 6 digits, 30 s. The secret is kept encrypted and pending until confirmed; enrolling again replaces a pending one.
         */
        post: operations["dashboardTotpEnrol"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/totp/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm TOTP with a first code: recovery codes, shown once
         * @description Ten recovery codes (xxxx-xxxx-xxxx, lowercase base32), each usable once instead of a code; only their keyed hashes are kept. The session becomes active with a new cookie value and CSRF token. A wrong code: 400 parameter_invalid (param code).
         */
        post: operations["dashboardTotpConfirm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the password: every other session of the user ends
         * @description This session gets a new cookie value and CSRF token; every other session of the user, and their tokens, end. A wrong current password: 400 parameter_invalid (param current_password), throttled like sign-in. After 5 failures for one email from one address within 15 minutes (fixed windows), 429 rate_limited with Retry-After; the per-address limit of failed requests (PURSE_ADDRESS_FAILURE_LIMIT per minute) applies too. Failures from other addresses never block an account.
         */
        post: operations["dashboardChangePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the merchant's users (removed ones excluded); owners only */
        get: operations["dashboardListUsers"];
        put?: never;
        /**
         * Invite a user: a one-time link, valid 72 hours; owners only
         * @description The link is `<base>/dashboard/invitation#<token>` (PURSE_PUBLIC_URL, else this request’s origin), shown once. An email already used by a user that is not removed, of any merchant: 409 user_exists (one message, whichever merchant).
         */
        post: operations["dashboardInviteUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dashboard/api/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a user: its sessions and tokens end; owners only
         * @description The user stays in the audit log; its email is free again.
         */
        delete: operations["dashboardRemoveUser"];
        options?: never;
        head?: never;
        /**
         * Change a user's role; owners only
         * @description Takes effect on the user’s sessions and session tokens within 5 s.
         */
        patch: operations["dashboardChangeUserRole"];
        trace?: never;
    };
    "/provider-callbacks/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Receive an asynchronous outcome from a payment provider
         * @description Called by providers, not by merchants. The sandbox signs the raw body with HMAC-SHA256 under a key derived from the service key, base64url, in the sandbox-signature header; a missing or wrong signature is 401 and changes nothing. A callback is a hint: Purse then asks the provider for the object's status and applies that, not the body's claim. A pending object takes a final status (ledger posting, event and webhooks as for a polled status). Repeated callbacks are answered 200 and change nothing; a status contradicting a final state is answered 200 and kept for reconciliation (a final state never changes). When the provider cannot be asked, 503: deliver the callback again.
         */
        put: operations["receiveProviderCallbackPut"];
        /**
         * Receive an asynchronous outcome from a payment provider
         * @description Called by providers, not by merchants. The sandbox signs the raw body with HMAC-SHA256 under a key derived from the service key, base64url, in the sandbox-signature header; a missing or wrong signature is 401 and changes nothing. A callback is a hint: Purse then asks the provider for the object's status and applies that, not the body's claim. A pending object takes a final status (ledger posting, event and webhooks as for a polled status). Repeated callbacks are answered 200 and change nothing; a status contradicting a final state is answered 200 and kept for reconciliation (a final state never changes). When the provider cannot be asked, 503: deliver the callback again.
         */
        post: operations["receiveProviderCallback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/merchant": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The authenticated merchant
         * @description The profile of the merchant the access token belongs to; a cheap way to check a token.
         */
        get: operations["getMerchant"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/wallets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List wallets, newest first */
        get: operations["listWallets"];
        put?: never;
        /**
         * Create a stored-value wallet
         * @description An optional `reference` makes creation idempotent with the same rules as payments (200 replay, 409 conflict).
         */
        post: operations["createWallet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/wallets/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a wallet */
        get: operations["getWallet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/wallets/{id}/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The wallet's ledger entries, newest first */
        get: operations["listWalletTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/wallets/{id}/freeze": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Freeze a wallet: it refuses payments and top-ups
         * @description Idempotent. No body (or an empty JSON object).
         */
        post: operations["freezeWallet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/wallets/{id}/unfreeze": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unfreeze a wallet
         * @description Idempotent. No body (or an empty JSON object).
         */
        post: operations["unfreezeWallet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The merchant's collected funds per currency */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List payments, newest first */
        get: operations["listPayments"];
        put?: never;
        /**
         * Take a payment by mobile money, card or wallet
         * @description Mobile money is asynchronous (pending, then settled or expired at expires_at). A card is authorised synchronously. A wallet of the same merchant and currency is debited atomically. `reference` is unique per merchant: the same reference with the same request replays (200), with a different request is 409 reference_conflict.
         */
        post: operations["createPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a payment */
        get: operations["getPayment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/{id}/capture": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Capture an authorised card payment
         * @description For a card payment created with capture_method manual, in requires_capture: takes amount (all of amount_capturable when absent; a partial capture releases the rest) and answers the payment, succeeded with amount_received. The same capture again answers the payment as it is. Another state: 409 payment_invalid_state. Concurrent captures and cancels of one payment: exactly one is sent to the acquirer.
         */
        post: operations["capturePayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a card payment that waits for 3-D Secure or capture
         * @description From requires_action or requires_capture: the authorisation is released and the payment is canceled (final; no money moved). The same cancel again answers the payment as it is. Another state: 409 payment_invalid_state (a pending card payment cannot be canceled: its authorisation is in flight).
         */
        post: operations["cancelPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/topups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List top-ups, newest first
         * @description payment_method_type filters on the source type.
         */
        get: operations["listTopups"];
        put?: never;
        /**
         * Top up a wallet from mobile money or a card
         * @description Moves money from outside into one of the merchant's wallets; the wallet is credited only when the top-up succeeds. A frozen wallet gives 201 failed/wallet_inactive. If the wallet is frozen after a mobile-money top-up started, the money already collected is still credited. `reference` rules are those of payments, scoped to top-ups.
         */
        post: operations["createTopup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/topups/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a top-up */
        get: operations["getTopup"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List refunds, newest first */
        get: operations["listRefunds"];
        put?: never;
        /**
         * Refund a payment, in full or in part
         * @description Only a succeeded payment can be refunded (else 400 payment_not_refundable), and never above what is left of it (400 amount_too_large, param amount): pending and succeeded refunds count, a failed one gives its amount back. The database decides both on the payment's locked row, so concurrent refunds never add up to more than the payment. The money comes out of the available balance in the payment's currency; not enough gives 201 failed insufficient_funds. A wallet payment is refunded into its wallet at once (succeeded; a frozen wallet gives failed wallet_inactive); a card through its provider at once; mobile money to the payer's number, pending until the provider answers (refund.succeeded / refund.failed). `reference` rules are those of payments, scoped to refunds.
         */
        post: operations["createRefund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/refunds/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a refund */
        get: operations["getRefund"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List payouts, newest first */
        get: operations["listPayouts"];
        put?: never;
        /**
         * Send money from the available balance
         * @description The amount is taken from the available balance by one conditional statement when the payout is created: not enough gives 201 failed insufficient_funds, and concurrent payouts never overdraw. To one of your wallets: succeeded at once (a frozen wallet gives failed wallet_inactive). To mobile money: pending, the amount reserved, until the provider answers; a failed payout returns the amount to the available balance. Sandbox numbers as for payments (the last three digits; 004 is payee_not_found). `reference` rules are those of payments, scoped to payouts.
         */
        post: operations["createPayout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a payout */
        get: operations["getPayout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transfers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List transfers, newest first
         * @description wallet_id matches transfers from or to that wallet.
         */
        get: operations["listTransfers"];
        put?: never;
        /**
         * Move money from one wallet to another
         * @description Both wallets belong to the merchant, hold the transfer currency and differ. The debit of the source, the credit of the destination, the ledger posting and the event are one atomic write. A source that does not cover the amount, or a frozen source or destination, gives 201 failed (insufficient_funds, wallet_inactive) and moves nothing. `reference` rules are those of payments, scoped to transfers.
         */
        post: operations["createTransfer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transfers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a transfer */
        get: operations["getTransfer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout_sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List checkout sessions, newest first */
        get: operations["listCheckoutSessions"];
        put?: never;
        /**
         * Open a hosted checkout session
         * @description Send the payer to `url`: a page Purse hosts, where the payer pays by card (3-D Secure included) or mobile money; the card goes only to Purse. Each attempt is a payment of the merchant whose reference is the session's plus `/attempt-N`; after 5 failed attempts the session expires. The session completes from the payment's server-side state (never from the browser), with checkout_session.completed; the browser then goes to success_url with ?session_id=…. `reference` rules are those of payments, scoped to checkout sessions.
         */
        post: operations["createCheckoutSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout_sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a checkout session */
        get: operations["getCheckoutSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout_sessions/{id}/expire": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Expire an open checkout session
         * @description No body (or an empty JSON object). The page stops taking payments; checkout_session.expired is sent. An expired session answers as it is. A complete session, or one whose payment is still under way (mobile money waiting for the payer, 3-D Secure), is 409 checkout_session_invalid_state: that payment decides first.
         */
        post: operations["expireCheckoutSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List payment links, newest first */
        get: operations["listPaymentLinks"];
        put?: never;
        /**
         * Create a reusable payment link
         * @description A URL to share (a QR code, a message): each visit opens a fresh checkout session for `amount`, or for the amount the payer types when `amount` is null. Payment links take no `reference` (each session gets one naming the link); creating twice makes two links.
         */
        post: operations["createPaymentLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_links/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a payment link */
        get: operations["getPaymentLink"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Turn a payment link on or off */
        patch: operations["updatePaymentLink"];
        trace?: never;
    };
    "/v1/balance_transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every movement of the merchant's balance, newest first; as a CSV statement with Accept: text/csv
         * @description The entries of the merchant's funds (payments in; refunds and payouts out), newest first in the order they were applied, so each balance_after is the one below it plus its amount. balance_after is the running balance of the currency's funds, computed before the filters: a filtered list skips lines, it never restarts the balance (the lines it shows still chain through the ones it leaves out). With `Accept: text/csv` (any Accept naming it) the answer is the whole filtered range as one CSV statement (RFC 4180, CRLF, header row `id,created_at,source_type,source_id,currency,amount,balance_after`, newest first like the list, amounts as plain signed numbers), streamed with no size limit, and attached as balance_transactions.csv. It lists nothing newer than the newest entry when the download started. The statement is not paged: limit, starting_after or ending_before with text/csv is 400 parameter_invalid.
         */
        get: operations["listBalanceTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/payments/{id}/succeed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Force a pending payment to succeed (sandbox merchants only)
         * @description Only for pending objects at the sandbox provider (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the normal settlement, so the ledger, events and webhooks behave as live.
         */
        post: operations["sandboxSucceedPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/payments/{id}/fail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Force a pending payment to fail (sandbox merchants only)
         * @description Only for pending objects at the sandbox provider (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the normal settlement, so the ledger, events and webhooks behave as live. Optional body {"failure_code": …}; default payer_declined (mobile money) or card_declined.
         */
        post: operations["sandboxFailPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/topups/{id}/succeed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Force a pending topup to succeed (sandbox merchants only)
         * @description Only for pending objects at the sandbox provider (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the normal settlement, so the ledger, events and webhooks behave as live.
         */
        post: operations["sandboxSucceedTopup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/topups/{id}/fail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Force a pending topup to fail (sandbox merchants only)
         * @description Only for pending objects at the sandbox provider (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the normal settlement, so the ledger, events and webhooks behave as live. Optional body {"failure_code": …}; default payer_declined (mobile money) or card_declined.
         */
        post: operations["sandboxFailTopup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/refunds/{id}/succeed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Force a pending refund to succeed (sandbox merchants only)
         * @description Only for pending objects at the sandbox provider (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the normal settlement, so the ledger, events and webhooks behave as live.
         */
        post: operations["sandboxSucceedRefund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/refunds/{id}/fail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Force a pending refund to fail (sandbox merchants only)
         * @description Only for pending objects at the sandbox provider (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the normal settlement, so the ledger, events and webhooks behave as live. Optional body {"failure_code": …}; default provider_error; the amount returns to the balance and the payment.
         */
        post: operations["sandboxFailRefund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/payouts/{id}/succeed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Force a pending payout to succeed (sandbox merchants only)
         * @description Only for pending objects at the sandbox provider (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the normal settlement, so the ledger, events and webhooks behave as live.
         */
        post: operations["sandboxSucceedPayout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/payouts/{id}/fail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Force a pending payout to fail (sandbox merchants only)
         * @description Only for pending objects at the sandbox provider (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the normal settlement, so the ledger, events and webhooks behave as live. Optional body {"failure_code": …}; default payee_not_found; the amount returns to the available balance.
         */
        post: operations["sandboxFailPayout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List events, newest first */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve an event */
        get: operations["getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The event's webhook deliveries and every attempt */
        get: operations["listEventDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send the event again to its endpoints and callback_url
         * @description Every delivery of the event becomes due now (delivered ones too); enabled endpoints added since get a delivery. Answers the deliveries.
         */
        post: operations["redeliverEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhook endpoints */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Register a webhook endpoint
         * @description Deliveries are signed per Standard Webhooks (webhook-id = event id, webhook-timestamp, webhook-signature v1,<base64 HMAC-SHA256> over id.timestamp.body). At-least-once, no ordering promise, 10 s timeout, redirects not followed, retried with exponential back-off and jitter for about three days; any 2xx counts as delivered; 410 disables the endpoint. At most 16 endpoints per merchant and mode (400 limit_exceeded); events [] is refused.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a webhook endpoint */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /** Delete a webhook endpoint; its pending deliveries are not sent */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Edit a webhook endpoint
         * @description Changes url, events, description or status; only the fields given. A new url is checked like at creation.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}/rotate_secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description Answers the endpoint with its new secret. For 24 h the old secret keeps signing too: webhook-signature carries both signatures.
         */
        post: operations["rotateWebhookEndpointSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event to this endpoint
         * @description Creates a `webhook_endpoint.test` event (its object is the endpoint) delivered to this endpoint only, whatever its `events`, signed and retried like every delivery; GET /v1/events/{id}/deliveries shows the attempts. 400 when the endpoint is disabled.
         */
        post: operations["sendTestWebhookEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The merchant's default signing secret
         * @description Deliveries to the `callback_url` of a payment or top-up are signed with this secret (endpoints have their own). Cache-Control: no-store.
         */
        get: operations["getWebhookSecret"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the merchant's default signing secret
         * @description Answers the new secret. For 24 h the old secret keeps signing too: webhook-signature carries both signatures.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api_keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the merchant's API keys, newest first (revoked ones included) */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key with a name and scopes; its client_secret is shown in this answer only
         * @description Exchange the client_id and client_secret at POST /oauth/token as with any client credential: the token carries the key's scopes, and a route outside them answers 403 insufficient_scope. Needs scope all, or a developer's dashboard session token, which creates, rolls and revokes only keys within its own scopes (else 403 insufficient_scope).
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api_keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve an API key */
        get: operations["getApiKey"];
        put?: never;
        post?: never;
        /**
         * Revoke an API key: its secret and its tokens stop working within 5 s on every process
         * @description The key stays listed with status revoked. Revoking it again answers the same.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api_keys/{id}/roll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give an API key a new secret (shown once); the old one may keep working for an overlap
         * @description Without overlap_seconds the old secret and every token issued with it stop at once (within 5 s on every process); with it they stop when the overlap ends. A revoked key cannot be rolled (409 invalid_state).
         */
        post: operations["rollApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit_events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The merchant's audit log, newest first
         * @description Security-relevant acts (keys, webhook endpoints, refunds, payouts, wallet freezes, the operator’s changes to the merchant), each written in the same transaction as the act and chained by hash (`purse audit verify`). Scope all.
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description The error envelope of every /v1 error: type, code, message, param and the request id. */
        Error: {
            error: {
                /** @example invalid_request_error */
                type: string;
                /** @example parameter_invalid */
                code: string;
                message: string;
                /** @description Dotted path of the offending field, e.g. payment_method.card.number. */
                param?: string;
                /** @description With reference_conflict: the id of the object that owns the reference. */
                existing_id?: string;
                /** @example req_01jd6x8v1ffq8v2k3m4n5p6q7r */
                request_id: string;
            };
        };
        /** @description RFC 6749 §4.4 client-credentials request, as JSON or form-encoded (the same fields); unknown fields are ignored. The client id and secret go in the body or in an HTTP Basic Authorization header (clientBasic), not both. */
        TokenRequest: {
            /**
             * @description client_credentials; any other grant: 400 unsupported_grant_type.
             * @example client_credentials
             */
            grant_type: string;
            /**
             * @description Required unless the client authenticates with HTTP Basic; never both.
             * @example cli_…
             */
            client_id?: string;
            /**
             * @description Required unless the client authenticates with HTTP Basic; never both.
             * @example sk_test_…
             */
            client_secret?: string;
        } & {
            [key: string]: unknown;
        };
        TokenResponse: {
            access_token: string;
            /** @enum {string} */
            token_type: "Bearer";
            /** @example 3600 */
            expires_in: number;
        };
        OAuthError: {
            error: "invalid_request" | "unsupported_grant_type" | "invalid_client" | "too_many_requests";
            error_description: string;
        };
        User: {
            /** @example usr_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "user";
            email: string;
            /** @description owner (everything, users and keys), admin (everything but users), developer (keys, webhooks, read), support (read, refund), viewer (read only). */
            role: "owner" | "admin" | "developer" | "support" | "viewer";
            status: "invited" | "active";
            totp_enabled: boolean;
            /** Format: date-time */
            created_at: string;
        };
        Merchant: {
            /** @example mer_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "merchant";
            name: string;
            status: "active" | "disabled";
            /** @description false for a sandbox merchant: its objects go to the sandbox provider. */
            livemode: boolean;
            client_id: string;
            /** Format: date-time */
            created_at: string;
        };
        Wallet: {
            /** @example wal_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "wallet";
            currency: string;
            /** @example 0.00 */
            balance: string;
            status: "active" | "inactive";
            reference: string | null;
            holder: {
                name: string | null;
                phone_number: string | null;
                email: string | null;
            } | null;
            metadata: {
                [key: string]: string;
            };
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        WalletTransaction: {
            /** @example wtx_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "wallet_transaction";
            /**
             * @description Signed: + credit, - debit.
             * @example +1500.00
             */
            amount: string;
            currency: string;
            balance_after: string;
            source_type: "payment" | "topup" | "transfer" | "refund" | "payout";
            source_id: string;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The merchant's funds per currency, in every currency it has ever held funds in. */
        Balance: {
            /** @enum {string} */
            object: "balance";
            /** @description What refunds and payouts may use now: succeeded payments less pending and succeeded refunds and payouts. */
            available: {
                currency: string;
                amount: string;
            }[];
            /** @description Held by pending refunds and payouts; it returns to available if they fail. */
            reserved: {
                currency: string;
                amount: string;
            }[];
            livemode: boolean;
        };
        /** @description type mobile_money: the mobile_money object, and no other. */
        MobileMoneyMethod: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "mobile_money";
            mobile_money: {
                /**
                 * @description E.164, e.g. +254712345678.
                 * @example +254712345678
                 */
                phone_number: string;
                /**
                 * @description The mobile-money network: mtn (MTN MoMo) or mpesa (Safaricom M-Pesa). Absent: the network of the number's country calling code.
                 * @example mpesa
                 */
                provider?: "mtn" | "mpesa";
            };
            card?: never;
            wallet?: never;
        };
        /** @description type card: the card object, and no other. */
        CardMethod: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "card";
            card: {
                /**
                 * @description Digits only; never stored, logged or returned.
                 * @example 4242424242424242
                 */
                number: string;
                exp_month: number;
                exp_year: number;
                /** @description 3–4 digits; never stored. */
                cvc: string;
                holder_name?: string;
            };
            mobile_money?: never;
            wallet?: never;
        };
        /** @description type wallet: the wallet object, and no other. */
        WalletMethod: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "wallet";
            wallet: {
                wallet_id: string;
            };
            mobile_money?: never;
            card?: never;
        };
        PaymentMethodView: {
            type: "mobile_money" | "card" | "wallet";
            mobile_money?: {
                phone_number: string;
                provider: string | null;
            };
            card?: {
                brand: string;
                last4: string;
                exp_month: number;
                exp_year: number;
                /** @description Payments only: what 3-D Secure decided, once the acquirer said (null before, or when it did not say). */
                three_d_secure?: {
                    result: "authenticated" | "failed" | "not_required";
                } | null;
            };
            wallet?: {
                wallet_id: string;
            };
        };
        Payment: {
            /** @example pay_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "payment";
            reference: string;
            /** @description pending: waiting on the provider. Cards only: requires_action (the payer must complete 3-D Secure at next_action), requires_capture (authorised, a hold: capture or cancel it). Final: succeeded, failed, canceled. */
            status: "pending" | "requires_action" | "requires_capture" | "succeeded" | "failed" | "canceled";
            /** @example 1500.00 */
            amount: string;
            currency: string;
            description: string | null;
            metadata: {
                [key: string]: string;
            };
            /** @description Why the object failed; null unless status is failed. */
            failure: {
                code: string;
                message: string;
            } | null;
            provider_reference: string | null;
            callback_url: string | null;
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            completed_at: string | null;
            expires_at: string | null;
            /** @description A provider outcome that arrived after this object became final. It was never applied: status, amount and balances stay as they are; the `<object>.late_outcome` event announced it, so you can refund or chase. Null unless one arrived; the first one is kept and later ones change nothing. `failure_code` is set only when status is failed. One exception moves money: a refund that succeeded and then failed (the payer never got it) stays succeeded, and its amount comes back to the available balance and to the payment's refundable amount, once, in the same write that keeps the late outcome. */
            late_outcome: {
                status: "succeeded" | "failed";
                provider_reference: string | null;
                /** @description The provider's failure code when status is failed; null otherwise. */
                failure_code: string | null;
                /** Format: date-time */
                received_at: string;
            } | null;
            /**
             * @description Pending and succeeded refunds of this payment ("0.00" when none).
             * @example 0.00
             */
            amount_refunded: string;
            /** @description Cards: automatic (default) captures when authorised; manual authorises only, and POST /v1/payments/{id}/capture takes the money. */
            capture_method: "automatic" | "manual";
            /**
             * @description What a capture may take now ("0.00" unless requires_capture).
             * @example 0.00
             */
            amount_capturable: string;
            /**
             * @description What reached the merchant: the captured amount once succeeded, else "0.00". Refunds are capped by it.
             * @example 1500.00
             */
            amount_received: string;
            capture_before: string | null;
            /** @description What the payer must do; null unless status is requires_action. */
            next_action: {
                /** @enum {string} */
                type: "redirect_to_url";
                redirect_to_url: {
                    /** @description A Purse URL: send the payer's browser there to complete 3-D Secure. */
                    url: string;
                    /** @description Where Purse sends the browser afterwards, with ?payment_id=… (a top-up: ?topup_id=…). */
                    return_url: string | null;
                };
                /**
                 * Format: date-time
                 * @description An unfinished challenge fails authentication_failed then.
                 */
                expires_at: string;
            } | null;
            /** @description Why a canceled payment was canceled: a reason the merchant gave, or expired (the hold was not captured by capture_before). */
            cancellation_reason: "requested_by_customer" | "duplicate" | "fraudulent" | "abandoned" | "expired" | null;
            payment_method: components["schemas"]["PaymentMethodView"];
            customer: {
                name: string | null;
                email: string | null;
                phone_number: string | null;
            } | null;
        };
        Topup: {
            /** @example top_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "topup";
            reference: string;
            /** @description pending: waiting on the provider. Cards only: requires_action (the payer must complete 3-D Secure at next_action), requires_capture (authorised, a hold: capture or cancel it). Final: succeeded, failed, canceled. */
            status: "pending" | "requires_action" | "requires_capture" | "succeeded" | "failed" | "canceled";
            /** @example 1500.00 */
            amount: string;
            currency: string;
            description: string | null;
            metadata: {
                [key: string]: string;
            };
            /** @description Why the object failed; null unless status is failed. */
            failure: {
                code: string;
                message: string;
            } | null;
            provider_reference: string | null;
            callback_url: string | null;
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            completed_at: string | null;
            expires_at: string | null;
            /** @description A provider outcome that arrived after this object became final. It was never applied: status, amount and balances stay as they are; the `<object>.late_outcome` event announced it, so you can refund or chase. Null unless one arrived; the first one is kept and later ones change nothing. `failure_code` is set only when status is failed. One exception moves money: a refund that succeeded and then failed (the payer never got it) stays succeeded, and its amount comes back to the available balance and to the payment's refundable amount, once, in the same write that keeps the late outcome. */
            late_outcome: {
                status: "succeeded" | "failed";
                provider_reference: string | null;
                /** @description The provider's failure code when status is failed; null otherwise. */
                failure_code: string | null;
                /** Format: date-time */
                received_at: string;
            } | null;
            wallet_id: string;
            source: components["schemas"]["PaymentMethodView"];
            /** @description What the payer must do; null unless status is requires_action. */
            next_action: {
                /** @enum {string} */
                type: "redirect_to_url";
                redirect_to_url: {
                    /** @description A Purse URL: send the payer's browser there to complete 3-D Secure. */
                    url: string;
                    /** @description Where Purse sends the browser afterwards, with ?payment_id=… (a top-up: ?topup_id=…). */
                    return_url: string | null;
                };
                /**
                 * Format: date-time
                 * @description An unfinished challenge fails authentication_failed then.
                 */
                expires_at: string;
            } | null;
        };
        /** @description Where the money goes; a refund mirrors the means of its payment. */
        Destination: {
            type: "mobile_money" | "wallet" | "card";
            mobile_money?: {
                phone_number: string;
                provider: string | null;
            };
            wallet?: {
                wallet_id: string;
            };
            card?: {
                brand: string;
                last4: string;
            };
        };
        Refund: {
            /** @example re_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "refund";
            payment_id: string;
            reason: string | null;
            reference: string;
            /** @description pending: waiting on the provider. Cards only: requires_action (the payer must complete 3-D Secure at next_action), requires_capture (authorised, a hold: capture or cancel it). Final: succeeded, failed, canceled. */
            status: "pending" | "requires_action" | "requires_capture" | "succeeded" | "failed" | "canceled";
            /** @example 500.00 */
            amount: string;
            currency: string;
            destination: components["schemas"]["Destination"];
            /** @description Why the object failed; null unless status is failed. */
            failure: {
                code: string;
                message: string;
            } | null;
            provider_reference: string | null;
            description: string | null;
            metadata: {
                [key: string]: string;
            };
            callback_url: string | null;
            /** @description A provider outcome that arrived after this object became final. It was never applied: status, amount and balances stay as they are; the `<object>.late_outcome` event announced it, so you can refund or chase. Null unless one arrived; the first one is kept and later ones change nothing. `failure_code` is set only when status is failed. One exception moves money: a refund that succeeded and then failed (the payer never got it) stays succeeded, and its amount comes back to the available balance and to the payment's refundable amount, once, in the same write that keeps the late outcome. */
            late_outcome: {
                status: "succeeded" | "failed";
                provider_reference: string | null;
                /** @description The provider's failure code when status is failed; null otherwise. */
                failure_code: string | null;
                /** Format: date-time */
                received_at: string;
            } | null;
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            completed_at: string | null;
        };
        Payout: {
            /** @example po_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "payout";
            reference: string;
            /** @description pending: waiting on the provider. Cards only: requires_action (the payer must complete 3-D Secure at next_action), requires_capture (authorised, a hold: capture or cancel it). Final: succeeded, failed, canceled. */
            status: "pending" | "requires_action" | "requires_capture" | "succeeded" | "failed" | "canceled";
            /** @example 500.00 */
            amount: string;
            currency: string;
            destination: components["schemas"]["Destination"];
            /** @description Why the object failed; null unless status is failed. */
            failure: {
                code: string;
                message: string;
            } | null;
            provider_reference: string | null;
            description: string | null;
            metadata: {
                [key: string]: string;
            };
            callback_url: string | null;
            /** @description A provider outcome that arrived after this object became final. It was never applied: status, amount and balances stay as they are; the `<object>.late_outcome` event announced it, so you can refund or chase. Null unless one arrived; the first one is kept and later ones change nothing. `failure_code` is set only when status is failed. One exception moves money: a refund that succeeded and then failed (the payer never got it) stays succeeded, and its amount comes back to the available balance and to the payment's refundable amount, once, in the same write that keeps the late outcome. */
            late_outcome: {
                status: "succeeded" | "failed";
                provider_reference: string | null;
                /** @description The provider's failure code when status is failed; null otherwise. */
                failure_code: string | null;
                /** Format: date-time */
                received_at: string;
            } | null;
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            completed_at: string | null;
        };
        Transfer: {
            /** @example tr_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "transfer";
            reference: string;
            status: "succeeded" | "failed";
            /** @example 250.00 */
            amount: string;
            currency: string;
            source_wallet_id: string;
            destination_wallet_id: string;
            /** @description Why the object failed; null unless status is failed. */
            failure: {
                code: string;
                message: string;
            } | null;
            description: string | null;
            metadata: {
                [key: string]: string;
            };
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
        };
        CheckoutSession: {
            /** @example cs_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "checkout_session";
            reference: string;
            status: "open" | "complete" | "expired";
            /** @description From the payment that completed the session: paid (succeeded), authorized (requires_capture), else unpaid. */
            payment_status: "unpaid" | "authorized" | "paid";
            /** @description The hosted page (/pay/…): send the payer there. Its token is unguessable and names nothing. */
            url: string;
            amount: string;
            currency: string;
            payment_method_types: string[];
            capture_method: string;
            success_url: string | null;
            cancel_url: string | null;
            payment_id: string | null;
            payment_link: string | null;
            customer: {
                [key: string]: string;
            } | null;
            description: string | null;
            metadata: {
                [key: string]: string;
            };
            livemode: boolean;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** @description When it became complete or expired. */
            completed_at: string | null;
        };
        PaymentLink: {
            /** @example plink_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "payment_link";
            /** @description Share it (or its QR code): each visit opens a fresh checkout session. */
            url: string;
            amount: string | null;
            currency: string;
            description: string;
            payment_method_types: string[];
            after_completion_url: string | null;
            active: boolean;
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        BalanceTransaction: {
            /** @example len_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "balance_transaction";
            /**
             * @description Signed: + money in, - money out.
             * @example +1500.00
             */
            amount: string;
            /** @example KES */
            currency: string;
            /**
             * @description The balance of the merchant's funds in this currency right after this entry (never a filtered subtotal).
             * @example 4250.00
             */
            balance_after: string;
            source_type: "payment" | "refund" | "payout";
            /** @description The payment, refund or payout that moved the balance. */
            source_id: string;
            /** Format: date-time */
            created_at: string;
        };
        /** @description One state change. Its id is the webhook-id header of every delivery of it. */
        Event: {
            /** @example evt_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "event";
            /** @example payment.succeeded */
            type: string;
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
            data: {
                /** @description The payment or top-up as it was at this change. */
                object: {
                    [key: string]: unknown;
                };
            };
        };
        WebhookDelivery: {
            id: string;
            /** @enum {string} */
            object: "webhook_delivery";
            event_id: string;
            /** @description null: the object's callback_url. */
            webhook_endpoint_id: string | null;
            url: string;
            status: "pending" | "delivered" | "failed";
            attempt_count: number;
            next_attempt_at: string | null;
            last_status_code: number | null;
            last_error: string | null;
            /** Format: date-time */
            created_at: string;
            delivered_at: string | null;
            attempts: {
                /** Format: date-time */
                attempted_at: string;
                status_code: number | null;
                latency_ms: number;
                /** @example HTTP 400 */
                error: string | null;
                /**
                 * @description The start of the endpoint's answer when it was not 2xx: at most 200 characters, tabs and line breaks as spaces, other control characters as U+FFFD. null when the attempt was delivered, got no answer, or the answer had no body.
                 * @example {"error":"invalid signature"}
                 */
                response_excerpt: string | null;
            }[];
        };
        WebhookEndpoint: {
            /** @example whe_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "webhook_endpoint";
            url: string;
            events: string[];
            description: string | null;
            /** @description disabled after the endpoint answered 410 Gone. */
            status: "enabled" | "disabled";
            livemode: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description whsec_…: only in the create and rotate_secret answers. */
            secret?: string;
        };
        ApiKey: {
            /** @example key_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "api_key";
            name: string;
            /** @description The client_id to send to POST /oauth/token with this key’s secret. */
            client_id: string;
            scopes: string[];
            status: "active" | "revoked";
            livemode: boolean;
            /** @description After a roll with an overlap: until when the previous secret (and its tokens) still work. */
            previous_secret_expires_at: string | null;
            /** Format: date-time */
            created_at: string;
            revoked_at: string | null;
            /** @description Only in the create and roll answers: shown once, stored only as a hash. */
            client_secret?: string;
        };
        AuditEvent: {
            /** @example aud_01jd6x8v1ffq8v2k3m4n5p6q7r */
            id: string;
            /** @enum {string} */
            object: "audit_event";
            /**
             * @example api_key.created
             * @example refund.created
             * @example merchant.secret_rotated
             */
            action: string;
            actor: {
                type: "user" | "api_key" | "operator";
                id: string | null;
                email?: string;
            };
            target: {
                type: string;
                id: string;
            };
            ip_address: string | null;
            user_agent: string | null;
            request_id: string | null;
            changes: {
                [key: string]: unknown;
            } | null;
            /** Format: date-time */
            created_at: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TokenRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description A Bearer token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description invalid_request or unsupported_grant_type. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description invalid_client: unknown client, wrong secret or disabled merchant (identical bodies). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description too_many_requests after repeated failures for one client; see Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
        };
    };
    getRoot: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        name: "Purse";
                        links: {
                            docs: string;
                            dashboard: string;
                            openapi: string;
                            token: string;
                            api: string;
                        };
                    };
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: string;
                    };
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: string;
                        /** @description Where rate limits and failure throttles are counted: "shared through Redis", "per process", or "per process (Redis unreachable: …)". */
                        limits: string;
                        /** @description The database as this process sees it. */
                        database: {
                            /** @description The node answering takes writes: not in recovery, not read-only. */
                            writable: boolean;
                            /** @description The node the connections reach, through HAProxy: the primary when writable. */
                            primary: {
                                /** @description The address the node answers on (inet_server_addr); null on a socket or the embedded database. */
                                address: string | null;
                                port: number | null;
                                /** @description The cluster it belongs to (pg_control_system): the same on every node of one Patroni cluster. */
                                system_identifier: string;
                                /** @description Its timeline: one more after each promotion. */
                                timeline: number;
                            };
                            /** @description Standbys replicating synchronously (pg_stat_replication sync_state sync or quorum): 0 means an acknowledged write is on one node only. Null when the role may not read pg_stat_replication (grant pg_monitor). */
                            synchronous_standbys: number | null;
                        };
                    };
                };
            };
            /** @description service_unavailable: the database is unreachable; retry after Retry-After. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text format. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    dashboardSignIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Compared without regard to case; an email belongs to at most one user that is not removed, across all merchants.
                     * @example ada@shop.example
                     */
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description active; second_factor_required (TOTP on: POST /dashboard/api/sign-in/second-factor next); enrolment_required (owner or admin without TOTP: the session can only enrol TOTP, read the session and sign out). */
                        state: "active" | "second_factor_required" | "enrolment_required";
                        /** @description Send it as the X-CSRF-Token header with every POST, PATCH and DELETE of this session. */
                        csrf_token: string;
                        user: components["schemas"]["User"];
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid or parameter_unknown. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description sign_in_failed: wrong email or password, or the user is not active. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid (missing or wrong X-CSRF-Token, or a cross-site request), or session_incomplete (the second factor or TOTP enrolment comes first). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardSecondFactor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Either a TOTP code or a recovery code. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description The current 6-digit code of the authenticator app. */
                    code: string;
                } | {
                    /** @description An unused recovery code, xxxx-xxxx-xxxx. */
                    recovery_code: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        state: "active";
                        /** @description Send it as the X-CSRF-Token header with every POST, PATCH and DELETE of this session. */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid or parameter_unknown. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description second_factor_invalid (wrong, expired or used code), or session_invalid. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid (missing or wrong X-CSRF-Token, or a cross-site request), or session_incomplete (the second factor or TOTP enrolment comes first). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A conflict; see the code. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardAcceptInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The part after # in the invitation link. */
                    token: string;
                    /** @description 12 to 200 characters, no control characters, no composition rules. Stored as an argon2id hash. */
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        email: string;
                    };
                };
            };
            /** @description invitation_invalid (used, expired or unknown), or invalid input. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid (missing or wrong X-CSRF-Token, or a cross-site request), or session_incomplete (the second factor or TOTP enrolment comes first). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description active; second_factor_required (TOTP on: POST /dashboard/api/sign-in/second-factor next); enrolment_required (owner or admin without TOTP: the session can only enrol TOTP, read the session and sign out). */
                        state: "active" | "second_factor_required" | "enrolment_required";
                        /** @description Send it as the X-CSRF-Token header with every POST, PATCH and DELETE of this session. */
                        csrf_token: string;
                        user: components["schemas"]["User"];
                        merchant: {
                            id: string;
                            name: string;
                            livemode: boolean;
                        };
                        /**
                         * Format: date-time
                         * @description The absolute end (PURSE_SESSION_ABSOLUTE_S after sign-in).
                         */
                        expires_at: string;
                        /**
                         * Format: date-time
                         * @description The end if no request comes before (PURSE_SESSION_IDLE_S).
                         */
                        idle_expires_at: string;
                    };
                };
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardSessionToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        access_token: string;
                        /** @enum {string} */
                        token_type: "Bearer";
                        /** @example 600 */
                        expires_in: number;
                    };
                };
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid (missing or wrong X-CSRF-Token, or a cross-site request), or session_incomplete (the second factor or TOTP enrolment comes first). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardSignOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid (missing or wrong X-CSRF-Token, or a cross-site request), or session_incomplete (the second factor or TOTP enrolment comes first). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardTotpEnrol: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The TOTP secret, base32, to type into an authenticator app. */
                        secret: string;
                        /** @description otpauth://totp/Purse:<email>?secret=…&issuer=Purse&algorithm=SHA1&digits=6&period=30 */
                        otpauth_uri: string;
                    };
                };
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid (missing or wrong X-CSRF-Token, or a cross-site request), or session_incomplete (the second factor or TOTP enrolment comes first). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description totp_already_enabled. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardTotpConfirm: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Ten codes, shown once, each usable once. */
                        recovery_codes: string[];
                        /** @description Send it as the X-CSRF-Token header with every POST, PATCH and DELETE of this session. */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid or parameter_unknown. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid (missing or wrong X-CSRF-Token, or a cross-site request), or session_incomplete (the second factor or TOTP enrolment comes first). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description totp_already_enabled, or invalid_state (no enrolment under way). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardChangePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    current_password: string;
                    /** @description 12 to 200 characters, no control characters, no composition rules. Stored as an argon2id hash. */
                    new_password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Send it as the X-CSRF-Token header with every POST, PATCH and DELETE of this session. */
                        csrf_token: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid or parameter_unknown. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid (missing or wrong X-CSRF-Token, or a cross-site request), or session_incomplete (the second factor or TOTP enrolment comes first). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardListUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["User"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid, session_incomplete, or insufficient_role (only owners manage users). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardInviteUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Compared without regard to case; an email belongs to at most one user that is not removed, across all merchants.
                     * @example ada@shop.example
                     */
                    email: string;
                    /** @description owner (everything, users and keys), admin (everything but users), developer (keys, webhooks, read), support (read, refund), viewer (read only). */
                    role: "owner" | "admin" | "developer" | "support" | "viewer";
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["User"];
                        /** @description <base>/dashboard/invitation#<token>: shown once, works once, for 72 hours. */
                        invitation_url: string;
                        /** Format: date-time */
                        invitation_expires_at: string;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid or parameter_unknown. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid, session_incomplete, or insufficient_role (only owners manage users). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description user_exists. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardRemoveUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid, session_incomplete, or insufficient_role (only owners manage users). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown user, or a user of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description last_owner: the merchant’s last active owner cannot be demoted or removed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dashboardChangeUserRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description owner (everything, users and keys), admin (everything but users), developer (keys, webhooks, read), support (read, refund), viewer (read only). */
                    role: "owner" | "admin" | "developer" | "support" | "viewer";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid or parameter_unknown. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description session_invalid: no live session (signed out, expired, revoked); the cookie is cleared. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description csrf_token_invalid, session_incomplete, or insufficient_role (only owners manage users). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown user, or a user of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description last_owner: the merchant’s last active owner cannot be demoted or removed. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receiveProviderCallbackPut: {
        parameters: {
            query?: never;
            header?: {
                /** @description Sandbox: base64url HMAC-SHA256 of the raw body. */
                "sandbox-signature"?: string;
            };
            path: {
                /** @description The provider sending the callback, e.g. sandbox. */
                provider: string;
            };
            cookie?: never;
        };
        /** @description The sandbox provider's callback; another provider's format is read by its connector. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description The Purse object id the provider was given as idempotency key (pay_… or top_…). */
                    idempotency_key: string;
                    /** @description The provider's own reference. */
                    provider_reference: string;
                    status: "succeeded" | "failed";
                    /** @description With status failed. */
                    failure_code?: "insufficient_funds" | "payer_declined" | "expired" | "payer_not_found" | "limit_exceeded" | "card_declined" | "expired_card" | "incorrect_cvc" | "processing_error" | "lost_or_stolen_card" | "fraudulent" | "authentication_failed" | "wallet_inactive" | "provider_error" | "payee_not_found";
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        received: true;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description signature_invalid: the signature is missing or does not match the body. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receiveProviderCallback: {
        parameters: {
            query?: never;
            header?: {
                /** @description Sandbox: base64url HMAC-SHA256 of the raw body. */
                "sandbox-signature"?: string;
            };
            path: {
                /** @description The provider sending the callback, e.g. sandbox. */
                provider: string;
            };
            cookie?: never;
        };
        /** @description The sandbox provider's callback; another provider's format is read by its connector. */
        requestBody: {
            content: {
                "application/json": {
                    /** @description The Purse object id the provider was given as idempotency key (pay_… or top_…). */
                    idempotency_key: string;
                    /** @description The provider's own reference. */
                    provider_reference: string;
                    status: "succeeded" | "failed";
                    /** @description With status failed. */
                    failure_code?: "insufficient_funds" | "payer_declined" | "expired" | "payer_not_found" | "limit_exceeded" | "card_declined" | "expired_card" | "incorrect_cvc" | "processing_error" | "lost_or_stolen_card" | "fraudulent" | "authentication_failed" | "wallet_inactive" | "provider_error" | "payee_not_found";
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        received: true;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description signature_invalid: the signature is missing or does not match the body. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMerchant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Merchant"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWallets: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["Wallet"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWallet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "currency": "KES",
                 *       "reference": "customer-42",
                 *       "holder": {
                 *         "name": "Amina Njeri",
                 *         "phone_number": "+254712345678"
                 *       }
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Upper-case ISO 4217 code.
                     * @example KES
                     */
                    currency: string;
                    /**
                     * @description Unique per merchant and resource type; case-sensitive; no control characters or surrounding spaces.
                     * @example order-1001
                     */
                    reference?: string;
                    holder?: {
                        name?: string;
                        email?: string;
                        /**
                         * @description E.164, e.g. +254712345678.
                         * @example +254712345678
                         */
                        phone_number?: string;
                    };
                    /**
                     * @description Up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).
                     * @example {
                     *       "order_id": "1001"
                     *     }
                     */
                    metadata?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The same reference with the same request: the existing object in its current state (Idempotent-Replayed: true). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            /** @description Created, with balance 0 and status active. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWallet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWalletTransactions: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["WalletTransaction"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    freezeWallet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    unfreezeWallet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The merchant's funds per currency, in every currency it has ever held funds in. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Balance"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPayments: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                reference?: string;
                /** @description pending: waiting on the provider. Cards only: requires_action (the payer must complete 3-D Secure at next_action), requires_capture (authorised, a hold: capture or cancel it). Final: succeeded, failed, canceled. */
                status?: "pending" | "requires_action" | "requires_capture" | "succeeded" | "failed" | "canceled";
                payment_method_type?: "mobile_money" | "card" | "wallet";
                /** @description RFC 3339 time: created at or after. */
                created_gte?: string;
                /** @description RFC 3339 time: created at or before. */
                created_lte?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["Payment"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPayment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Unique per merchant and resource type; case-sensitive; no control characters or surrounding spaces.
                     * @example order-1001
                     */
                    reference: string;
                    /**
                     * @description Decimal string of major units, > 0, at most the currency's minor digits ("1500" UGX, "10.50" KES).
                     * @example 1500.00
                     */
                    amount: string;
                    /**
                     * @description Upper-case ISO 4217 code.
                     * @example KES
                     */
                    currency: string;
                    /** @description The object named by `type` must be present, and no other. */
                    payment_method: {
                        type: "mobile_money" | "card" | "wallet";
                        mobile_money?: unknown;
                        card?: unknown;
                        wallet?: unknown;
                    } & (components["schemas"]["MobileMoneyMethod"] | components["schemas"]["CardMethod"] | components["schemas"]["WalletMethod"]);
                    customer?: {
                        name?: string;
                        email?: string;
                        /**
                         * @description E.164, e.g. +254712345678.
                         * @example +254712345678
                         */
                        phone_number?: string;
                    };
                    description?: string;
                    /** @description Absolute http(s) URL that also receives this object's events; no credentials; no private or loopback address unless the operator allows it. */
                    callback_url?: string;
                    /**
                     * @description Up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).
                     * @example {
                     *       "order_id": "1001"
                     *     }
                     */
                    metadata?: {
                        [key: string]: string;
                    };
                    /** @description Cards: automatic (default) captures when authorised; manual authorises only, and POST /v1/payments/{id}/capture takes the money. */
                    capture_method?: "automatic" | "manual";
                    /** @description Cards: where Purse sends the payer's browser after 3-D Secure, with ?payment_id=… (absolute http(s) URL). */
                    return_url?: string;
                };
            };
        };
        responses: {
            /** @description The same reference with the same request: the existing object in its current state (Idempotent-Replayed: true). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description Created. Business failures (declined card, empty wallet) are 201 with status "failed" and a failure code. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the database is unreachable; retry after Retry-After. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    capturePayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description At most amount_capturable; absent: all of it. A partial capture releases the rest.
                     * @example 1500.00
                     */
                    amount?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description Invalid request; a capture above amount_capturable is amount_too_large. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payment_invalid_state: the payment is in a state that does not allow it (or another operation of it is in progress). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Shown as cancellation_reason; requested_by_customer when absent. */
                    reason?: "requested_by_customer" | "duplicate" | "fraudulent";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description Invalid request; a capture above amount_capturable is amount_too_large. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payment_invalid_state: the payment is in a state that does not allow it (or another operation of it is in progress). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTopups: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                reference?: string;
                /** @description pending: waiting on the provider. Cards only: requires_action (the payer must complete 3-D Secure at next_action), requires_capture (authorised, a hold: capture or cancel it). Final: succeeded, failed, canceled. */
                status?: "pending" | "requires_action" | "requires_capture" | "succeeded" | "failed" | "canceled";
                payment_method_type?: "mobile_money" | "card" | "wallet";
                /** @description RFC 3339 time: created at or after. */
                created_gte?: string;
                /** @description RFC 3339 time: created at or before. */
                created_lte?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["Topup"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createTopup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reference": "topup-77",
                 *       "amount": "5000",
                 *       "currency": "UGX",
                 *       "wallet_id": "wal_01jd6x8v1ffq8v2k3m4n5p6q7r",
                 *       "source": {
                 *         "type": "mobile_money",
                 *         "mobile_money": {
                 *           "phone_number": "+256772000000",
                 *           "provider": "mtn"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Unique per merchant and resource type; case-sensitive; no control characters or surrounding spaces.
                     * @example order-1001
                     */
                    reference: string;
                    /**
                     * @description Decimal string of major units, > 0, at most the currency's minor digits ("1500" UGX, "10.50" KES).
                     * @example 1500.00
                     */
                    amount: string;
                    /**
                     * @description Upper-case ISO 4217 code.
                     * @example KES
                     */
                    currency: string;
                    /** @description The wallet to credit: same merchant, same currency. */
                    wallet_id: string;
                    /** @description The object named by `type` must be present, and no other. */
                    source: {
                        type: "mobile_money" | "card";
                        mobile_money?: unknown;
                        card?: unknown;
                    } & (components["schemas"]["MobileMoneyMethod"] | components["schemas"]["CardMethod"]);
                    description?: string;
                    /** @description Absolute http(s) URL that also receives this object's events; no credentials; no private or loopback address unless the operator allows it. */
                    callback_url?: string;
                    /**
                     * @description Up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).
                     * @example {
                     *       "order_id": "1001"
                     *     }
                     */
                    metadata?: {
                        [key: string]: string;
                    };
                    /** @description Cards: where Purse sends the payer's browser after 3-D Secure, with ?topup_id=… (absolute http(s) URL). */
                    return_url?: string;
                };
            };
        };
        responses: {
            /** @description The same reference with the same request: the existing object in its current state (Idempotent-Replayed: true). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topup"];
                };
            };
            /** @description Created. Business failures (declined card, empty wallet) are 201 with status "failed" and a failure code. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topup"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the database is unreachable; retry after Retry-After. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTopup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topup"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRefunds: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                reference?: string;
                /** @description pending: waiting on the provider. Cards only: requires_action (the payer must complete 3-D Secure at next_action), requires_capture (authorised, a hold: capture or cancel it). Final: succeeded, failed, canceled. */
                status?: "pending" | "requires_action" | "requires_capture" | "succeeded" | "failed" | "canceled";
                /** @description RFC 3339 time: created at or after. */
                created_gte?: string;
                /** @description RFC 3339 time: created at or before. */
                created_lte?: string;
                /** @description Refunds of this payment. */
                payment_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["Refund"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createRefund: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reference": "refund-1001-1",
                 *       "payment_id": "pay_01jd6x8v1ffq8v2k3m4n5p6q7r",
                 *       "amount": "500.00",
                 *       "reason": "requested_by_customer"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Unique per merchant and resource type; case-sensitive; no control characters or surrounding spaces.
                     * @example order-1001
                     */
                    reference: string;
                    /**
                     * @description The succeeded payment to refund.
                     * @example pay_01jd6x8v1ffq8v2k3m4n5p6q7r
                     */
                    payment_id: string;
                    /**
                     * @description Decimal string of major units, > 0, in the payment's currency. Default: all that is still refundable.
                     * @example 500.00
                     */
                    amount?: string;
                    reason?: "requested_by_customer" | "duplicate" | "fraudulent" | null;
                    description?: string;
                    /**
                     * @description Up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).
                     * @example {
                     *       "order_id": "1001"
                     *     }
                     */
                    metadata?: {
                        [key: string]: string;
                    };
                    /** @description Absolute http(s) URL that also receives this object's events; no credentials; no private or loopback address unless the operator allows it. */
                    callback_url?: string;
                };
            };
        };
        responses: {
            /** @description The same reference with the same request: the existing object in its current state (Idempotent-Replayed: true). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description Created. Business failures (declined card, empty wallet) are 201 with status "failed" and a failure code. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the database is unreachable; retry after Retry-After. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRefund: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPayouts: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                reference?: string;
                /** @description pending: waiting on the provider. Cards only: requires_action (the payer must complete 3-D Secure at next_action), requires_capture (authorised, a hold: capture or cancel it). Final: succeeded, failed, canceled. */
                status?: "pending" | "requires_action" | "requires_capture" | "succeeded" | "failed" | "canceled";
                /** @description RFC 3339 time: created at or after. */
                created_gte?: string;
                /** @description RFC 3339 time: created at or before. */
                created_lte?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["Payout"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPayout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reference": "payout-2026-11-23",
                 *       "amount": "2500.00",
                 *       "currency": "KES",
                 *       "destination": {
                 *         "type": "mobile_money",
                 *         "mobile_money": {
                 *           "phone_number": "+254712345678",
                 *           "provider": "mpesa"
                 *         }
                 *       },
                 *       "description": "Weekly settlement"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Unique per merchant and resource type; case-sensitive; no control characters or surrounding spaces.
                     * @example order-1001
                     */
                    reference: string;
                    /**
                     * @description Decimal string of major units, > 0, at most the currency's minor digits ("1500" UGX, "10.50" KES).
                     * @example 1500.00
                     */
                    amount: string;
                    /**
                     * @description Upper-case ISO 4217 code.
                     * @example KES
                     */
                    currency: string;
                    /** @description The object named by `type` must be present, and no other. A wallet must be yours. */
                    destination: {
                        type: "mobile_money" | "wallet";
                        mobile_money?: unknown;
                        wallet?: unknown;
                    } & (components["schemas"]["MobileMoneyMethod"] | components["schemas"]["WalletMethod"]);
                    description?: string;
                    /**
                     * @description Up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).
                     * @example {
                     *       "order_id": "1001"
                     *     }
                     */
                    metadata?: {
                        [key: string]: string;
                    };
                    /** @description Absolute http(s) URL that also receives this object's events; no credentials; no private or loopback address unless the operator allows it. */
                    callback_url?: string;
                };
            };
        };
        responses: {
            /** @description The same reference with the same request: the existing object in its current state (Idempotent-Replayed: true). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payout"];
                };
            };
            /** @description Created. Business failures (declined card, empty wallet) are 201 with status "failed" and a failure code. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payout"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the database is unreachable; retry after Retry-After. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPayout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payout"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTransfers: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                reference?: string;
                status?: "succeeded" | "failed";
                /** @description Transfers from or to this wallet. */
                wallet_id?: string;
                /** @description RFC 3339 time: created at or after. */
                created_gte?: string;
                /** @description RFC 3339 time: created at or before. */
                created_lte?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["Transfer"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createTransfer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reference": "move-2001",
                 *       "amount": "250.00",
                 *       "currency": "KES",
                 *       "source_wallet_id": "wal_01jd6x8v1ffq8v2k3m4n5p6q7r",
                 *       "destination_wallet_id": "wal_01jd6x9c4tfq8v2k3m4n5p6q7s",
                 *       "description": "Refund of order 1001 to the shared wallet",
                 *       "metadata": {
                 *         "order_id": "1001"
                 *       }
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Unique per merchant and resource type; case-sensitive; no control characters or surrounding spaces.
                     * @example order-1001
                     */
                    reference: string;
                    /**
                     * @description Decimal string of major units, > 0, at most the currency's minor digits ("1500" UGX, "10.50" KES).
                     * @example 1500.00
                     */
                    amount: string;
                    /**
                     * @description Upper-case ISO 4217 code.
                     * @example KES
                     */
                    currency: string;
                    /**
                     * @description The wallet debited: same merchant, same currency.
                     * @example wal_01jd6x8v1ffq8v2k3m4n5p6q7r
                     */
                    source_wallet_id: string;
                    /**
                     * @description The wallet credited: same merchant, same currency, not the source.
                     * @example wal_01jd6x8v1ffq8v2k3m4n5p6q7r
                     */
                    destination_wallet_id: string;
                    description?: string;
                    /**
                     * @description Up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).
                     * @example {
                     *       "order_id": "1001"
                     *     }
                     */
                    metadata?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The same reference with the same request: the existing object in its current state (Idempotent-Replayed: true). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Transfer"];
                };
            };
            /** @description Created. Business failures (declined card, empty wallet) are 201 with status "failed" and a failure code. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Transfer"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the database is unreachable; retry after Retry-After. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTransfer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Transfer"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCheckoutSessions: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                reference?: string;
                status?: "open" | "complete" | "expired";
                /** @description Sessions opened from this payment link. */
                payment_link?: string;
                /** @description RFC 3339 time: created at or after. */
                created_gte?: string;
                /** @description RFC 3339 time: created at or before. */
                created_lte?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["CheckoutSession"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createCheckoutSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reference": "order-1001",
                 *       "amount": "1500.00",
                 *       "currency": "KES",
                 *       "success_url": "https://shop.example/paid",
                 *       "cancel_url": "https://shop.example/cart",
                 *       "description": "Order 1001"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Unique per merchant among checkout sessions (same rules as payments). Each attempt is a payment whose reference is this one plus `/attempt-N`, hence at most 116 characters.
                     * @example order-1001
                     */
                    reference: string;
                    /**
                     * @description Decimal string of major units, > 0, at most the currency's minor digits ("1500" UGX, "10.50" KES).
                     * @example 1500.00
                     */
                    amount: string;
                    /**
                     * @description Upper-case ISO 4217 code.
                     * @example KES
                     */
                    currency: string;
                    /** @description What the payer may choose on the page; ["card", "mobile_money"] when absent. */
                    payment_method_types?: ("card" | "mobile_money")[];
                    /** @description Cards only: manual needs payment_method_types ["card"]. */
                    capture_method?: "automatic" | "manual";
                    /** @description Where the browser goes once the session is complete, with ?session_id=cs_… (absolute http(s) URL). */
                    success_url: string;
                    /** @description Where the page's "Cancel" link goes (absolute http(s) URL). */
                    cancel_url: string;
                    customer?: {
                        name?: string;
                        email?: string;
                        /**
                         * @description E.164, e.g. +254712345678.
                         * @example +254712345678
                         */
                        phone_number?: string;
                    };
                    description?: string;
                    /**
                     * @description Up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).
                     * @example {
                     *       "order_id": "1001"
                     *     }
                     */
                    metadata?: {
                        [key: string]: string;
                    };
                    /** @description Seconds until the session expires: 300 to 86400, 3600 by default. */
                    expires_in?: number;
                };
            };
        };
        responses: {
            /** @description The same reference with the same request: the existing object in its current state (Idempotent-Replayed: true). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutSession"];
                };
            };
            /** @description Created: the session is open. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutSession"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the database is unreachable; retry after Retry-After. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCheckoutSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutSession"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    expireCheckoutSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutSession"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description checkout_session_invalid_state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPaymentLinks: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                active?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["PaymentLink"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "amount": "2500.00",
                 *       "currency": "KES",
                 *       "description": "Yoga class, 10 sessions",
                 *       "active": true
                 *     }
                 */
                "application/json": {
                    amount?: string | null;
                    /**
                     * @description Upper-case ISO 4217 code.
                     * @example KES
                     */
                    currency: string;
                    /** @description What the payer buys: shown on the page. */
                    description: string;
                    /** @description What the payer may choose on the page; ["card", "mobile_money"] when absent. */
                    payment_method_types?: ("card" | "mobile_money")[];
                    /** @description Where the payer goes once paid, with ?session_id=…; null: Purse shows its receipt. */
                    after_completion_url?: string | null;
                    /** @description Whether the link takes payments; true when absent. */
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description Created. Business failures (declined card, empty wallet) are 201 with status "failed" and a failure code. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentLink"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_unavailable: the database is unreachable; retry after Retry-After. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentLink"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updatePaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description false: the link shows "no longer active" and opens no session. */
                    active: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentLink"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listBalanceTransactions: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                /** @description ISO 4217 code, upper case. */
                currency?: string;
                source_type?: "payment" | "refund" | "payout";
                /** @description RFC 3339 time: created at or after. */
                created_gte?: string;
                /** @description RFC 3339 time: created at or before. */
                created_lte?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page (JSON) or the statement (CSV). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["BalanceTransaction"][];
                        has_more: boolean;
                    };
                    "text/csv": string;
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sandboxSucceedPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sandboxFailPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    failure_code?: "insufficient_funds" | "payer_declined" | "expired" | "payer_not_found" | "limit_exceeded" | "card_declined" | "expired_card" | "incorrect_cvc" | "processing_error" | "lost_or_stolen_card" | "fraudulent" | "authentication_failed" | "wallet_inactive" | "provider_error" | "payee_not_found";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payment"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sandboxSucceedTopup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topup"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sandboxFailTopup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    failure_code?: "insufficient_funds" | "payer_declined" | "expired" | "payer_not_found" | "limit_exceeded" | "card_declined" | "expired_card" | "incorrect_cvc" | "processing_error" | "lost_or_stolen_card" | "fraudulent" | "authentication_failed" | "wallet_inactive" | "provider_error" | "payee_not_found";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topup"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sandboxSucceedRefund: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sandboxFailRefund: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    failure_code?: "insufficient_funds" | "payer_declined" | "expired" | "payer_not_found" | "limit_exceeded" | "card_declined" | "expired_card" | "incorrect_cvc" | "processing_error" | "lost_or_stolen_card" | "fraudulent" | "authentication_failed" | "wallet_inactive" | "provider_error" | "payee_not_found";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sandboxSucceedPayout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payout"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sandboxFailPayout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    failure_code?: "insufficient_funds" | "payer_declined" | "expired" | "payer_not_found" | "limit_exceeded" | "card_declined" | "expired_card" | "incorrect_cvc" | "processing_error" | "lost_or_stolen_card" | "fraudulent" | "authentication_failed" | "wallet_inactive" | "provider_error" | "payee_not_found";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payout"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                type?: "payment.created" | "payment.succeeded" | "payment.failed" | "payment.requires_action" | "payment.requires_capture" | "payment.captured" | "payment.canceled" | "topup.created" | "topup.succeeded" | "topup.failed" | "payment.late_outcome" | "topup.late_outcome" | "transfer.succeeded" | "transfer.failed" | "refund.created" | "refund.succeeded" | "refund.failed" | "refund.late_outcome" | "payout.created" | "payout.succeeded" | "payout.failed" | "payout.late_outcome" | "checkout_session.completed" | "checkout_session.expired" | "webhook_endpoint.test";
                /** @description Only the events of this payment or top-up. */
                object_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["Event"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One state change. Its id is the webhook-id header of every delivery of it. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Event"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEventDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["WebhookDelivery"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    redeliverEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["WebhookDelivery"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["WebhookEndpoint"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Absolute http(s) URL without credentials; its host must resolve to a public address. */
                    url: string;
                    /** @description Event types to receive; absent or ["*"]: all. An empty list is refused (400). */
                    events?: ("payment.created" | "payment.succeeded" | "payment.failed" | "payment.requires_action" | "payment.requires_capture" | "payment.captured" | "payment.canceled" | "topup.created" | "topup.succeeded" | "topup.failed" | "payment.late_outcome" | "topup.late_outcome" | "transfer.succeeded" | "transfer.failed" | "refund.created" | "refund.succeeded" | "refund.failed" | "refund.late_outcome" | "payout.created" | "payout.succeeded" | "payout.failed" | "payout.late_outcome" | "checkout_session.completed" | "checkout_session.expired" | "webhook_endpoint.test" | "*")[];
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Created; `secret` is shown only here. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        object: "webhook_endpoint";
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Absolute http(s) URL without credentials; its host must resolve to a public address. */
                    url?: string;
                    /** @description Event types to receive; absent or ["*"]: all. An empty list is refused (400). */
                    events?: ("payment.created" | "payment.succeeded" | "payment.failed" | "payment.requires_action" | "payment.requires_capture" | "payment.captured" | "payment.canceled" | "topup.created" | "topup.succeeded" | "topup.failed" | "payment.late_outcome" | "topup.late_outcome" | "transfer.succeeded" | "transfer.failed" | "refund.created" | "refund.succeeded" | "refund.failed" | "refund.late_outcome" | "payout.created" | "payout.succeeded" | "payout.failed" | "payout.late_outcome" | "checkout_session.completed" | "checkout_session.expired" | "webhook_endpoint.test" | "*")[];
                    description?: string | null;
                    /** @description "enabled" brings back an endpoint disabled by a 410 answer; "disabled" pauses deliveries. */
                    status?: "enabled" | "disabled";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateWebhookEndpointSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendTestWebhookEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One state change. Its id is the webhook-id header of every delivery of it. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Event"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "webhook_secret";
                        /** @description whsec_…: signs deliveries to the callback_url of payments and top-ups. */
                        secret: string;
                    };
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "webhook_secret";
                        /** @description whsec_…: signs deliveries to the callback_url of payments and top-ups. */
                        secret: string;
                    };
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["ApiKey"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    scopes: ("payments:read" | "payments:write" | "refunds:write" | "payouts:write" | "wallets:read" | "wallets:write" | "webhooks:write" | "all")[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 16 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: send application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rollApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description How long the previous secret and its tokens keep working (default 0: they stop now). At most 7 days. */
                    overlap_seconds?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description resource_not_found: unknown id, or an id of another merchant (identical body). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description reference_conflict (with existing_id) or invalid_state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                /** @description 1 to 100; default 10. */
                limit?: string;
                /** @description An id: the page after it (older objects). */
                starting_after?: string;
                /** @description An id: the page before it (newer objects). */
                ending_before?: string;
                action?: string;
                actor_id?: string;
                /** @description RFC 3339 time: created at or after. */
                created_gte?: string;
                /** @description RFC 3339 time: created at or before. */
                created_lte?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["AuditEvent"][];
                        has_more: boolean;
                    };
                };
            };
            /** @description Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description token_missing, token_invalid or token_expired; see WWW-Authenticate. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…"). */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited; see Retry-After and RateLimit-*. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
