import type { Deps } from '../deps.ts';

/**
 * First start on an empty embedded database: one sandbox merchant, its credentials printed once
 * with a copy-paste token request, so a newcomer can try the API within a minute.
 */
export async function bootstrapSandboxMerchant(deps: Deps, baseUrl: string): Promise<void> {
  if ((await deps.services.merchants.countMerchants()) > 0) return;
  const created = await deps.services.merchants.createMerchant({ name: 'Sandbox merchant' });
  if (!created.ok) return;
  const { merchant_id, client_id, client_secret } = created.value;
  const body = JSON.stringify({ grant_type: 'client_credentials', client_id, client_secret });
  process.stdout.write(
    `${[
      '',
      'Purse created a sandbox merchant on this new database. Its secret is shown only now:',
      `  merchant_id:   ${merchant_id}`,
      `  client_id:     ${client_id}`,
      `  client_secret: ${client_secret}`,
      '',
      'Get an access token:',
      `  curl -s ${baseUrl}/oauth/token -H 'Content-Type: application/json' -H 'Accept: application/json' \\`,
      `    -d '${body}'`,
      '',
      `Then: curl -s ${baseUrl}/v1/merchant -H "Authorization: Bearer <access_token>"`,
      `API reference: ${baseUrl}/docs`,
      '',
    ].join('\n')}\n`,
  );
}
