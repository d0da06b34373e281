// The shop's webhook endpoint at Purse: registered once, then reused on every start.
//
// Purse shows an endpoint's signing secret only when it creates the endpoint or rotates its secret,
// so the shop keeps it in a file of its own (mode 0600, keyed by endpoint id). On start:
//   - an endpoint for the shop's URL whose secret is in the file: reused as it is;
//   - one whose secret is not in the file (registered by another copy of the shop, or the file was
//     deleted): its secret is rotated and the new one stored (the old one keeps signing for 24 h);
//   - none: one is created.
// Other endpoints for the same URL (left by earlier runs) are deleted: their deliveries are signed
// with secrets the shop does not have, so each would be refused and retried for days.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

function readSecrets(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return { endpoints: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed.endpoints === 'object' && parsed.endpoints !== null) return parsed;
  } catch {
    /* reported below */
  }
  throw new Error(`${file} is not the shop's webhook file; move it away and start again`);
}

/** Written whole and renamed into place, readable by this user only: it holds signing secrets. */
function writeSecrets(file, secrets) {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/**
 * Makes sure the merchant has exactly one enabled endpoint for `url` and returns its id and secret.
 * `log` receives one line per thing done.
 */
export async function ensureWebhookEndpoint(purse, { url, clientId, file, log }) {
  const secrets = readSecrets(file);
  const all = [];
  for await (const endpoint of purse.webhookEndpoints.list({ limit: 100 })) all.push(endpoint);
  // Oldest first: when one must be chosen, the longest-standing endpoint stays.
  const forUrl = all.filter((e) => e.url === url).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  let endpoint = forUrl.find((e) => typeof secrets.endpoints[e.id]?.secret === 'string');
  let secret;
  if (endpoint) {
    secret = secrets.endpoints[endpoint.id].secret;
    log(`reusing webhook endpoint ${endpoint.id} → ${url} (its signing secret is in ${file})`);
  } else if (forUrl.length > 0) {
    endpoint = forUrl[0];
    secret = (await purse.webhookEndpoints.rotateSecret(endpoint.id)).secret;
    log(
      `webhook endpoint ${endpoint.id} → ${url} exists but its signing secret is not in ${file} (Purse shows it only once): ` +
        'rotated it and stored the new one (the old secret keeps signing alongside it for 24 h)',
    );
  } else {
    endpoint = await purse.webhookEndpoints.create({ url, description: 'examples/shop' });
    secret = endpoint.secret;
    log(`registered webhook endpoint ${endpoint.id} → ${url}; its signing secret is stored in ${file}`);
  }
  // Entries of endpoints this merchant no longer has are dropped; other merchants' stay.
  const ids = new Set(all.map((e) => e.id));
  for (const [id, entry] of Object.entries(secrets.endpoints)) {
    if (entry.client_id === clientId && !ids.has(id)) delete secrets.endpoints[id];
  }
  secrets.endpoints[endpoint.id] = { url, client_id: clientId, secret, stored_at: new Date().toISOString() };
  writeSecrets(file, secrets);

  if (endpoint.status === 'disabled') {
    await purse.webhookEndpoints.update(endpoint.id, { status: 'enabled' });
    log(`webhook endpoint ${endpoint.id} was disabled (it answered 410 Gone once): enabled it again`);
  }
  for (const extra of forUrl) {
    if (extra.id === endpoint.id) continue;
    await purse.webhookEndpoints.del(extra.id);
    delete secrets.endpoints[extra.id];
    log(`deleted webhook endpoint ${extra.id}, another one for ${url}: the shop cannot verify what it signs`);
  }
  writeSecrets(file, secrets);
  return { id: endpoint.id, secret };
}
